import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/api.js';
import { LineNormalizer } from '../../src/normalize/normalize-line.js';
import { logSource } from '../helpers/logs.js';
import { iso, load } from './rows.js';

// A log shipper (Filebeat, Vector, Splunk's export, Cloud Logging, Azure Monitor) or another logger kept the server's
// line as a string in a document of its own: the export holds the documents, the line inside each.

const T = '2026-11-09T10:00:00.250Z';
const created = { ts: T, kind: 'session.created', session: 'S1', node: 'mcp-a' };
const opened = { ts: '2026-11-09T10:00:00.260Z', kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get', node: 'mcp-a' };
const json = (o: object) => JSON.stringify(o);

/** As Filebeat (filestream or container input, ECS) writes an event to a file, Logstash or Elasticsearch. */
const filebeat = (line: string, extra: object = {}) =>
  json({ '@timestamp': '2026-11-09T10:00:07.125Z', '@metadata': { beat: 'filebeat', version: '8.15.0' }, message: line, host: { name: 'web-1' }, log: { file: { path: '/var/log/mcp.log' }, offset: 0 }, input: { type: 'filestream' }, ecs: { version: '8.0.0' }, ...extra });
/** An Elasticsearch hit as elasticdump (or a _search answer's hits) writes it. */
const hit = (source: object) => json({ _index: '.ds-filebeat-8.15.0-2026.11.09-000001', _id: 'k2Jq8pMB', _score: 1, _source: source });
/** Vector's file or console sink, its default log schema. */
const vector = (line: string) => json({ file: '/var/log/mcp.log', host: 'web-2', message: line, source_type: 'file', timestamp: '2026-11-09T10:00:08.5Z' });
/** A row of Splunk's export endpoint (search/jobs/export, output_mode=json): NDJSON. */
const splunk = (raw: string, offset = 0) => json({ preview: false, offset, result: { _raw: raw, _time: '2026-11-09T10:00:09.000+00:00', host: 'web-3', source: '/var/log/mcp.log', sourcetype: 'mcp' } });
/** A Cloud Logging entry of a line it could not read as JSON (a text prefix): the line as textPayload. */
const textEntry = (line: string) =>
  json({ insertId: 'x1', textPayload: line, resource: { type: 'k8s_container', labels: { pod_name: 'mcp-7d9f5-x2kq8', namespace_name: 'billing' } }, timestamp: '2026-11-09T10:00:10Z', severity: 'INFO' });
/** A row of Azure Monitor's ContainerLogV2 (AKS Container insights), as `az monitor log-analytics query` gives it: a JSON line kept parsed, or as text. */
const containerLogV2 = (message: object | string) =>
  json({ Computer: 'aks-nodepool1-12345678-vmss000002', ContainerName: 'mcp', LogMessage: message, LogSource: 'stdout', PodName: 'mcp-6c4b8-p9m2z', PodNamespace: 'billing', TableName: 'PrimaryResult', TimeGenerated: '2026-11-09T10:00:11.25Z' });
/** A row of the older ContainerLog table: the line as LogEntry, beside the cluster node (no pod). */
const containerLog = (line: string) => json({ Computer: 'aks-nodepool1-12345678-vmss000002', ContainerID: '3f1c9a2e5b7d', LogEntry: line, LogEntrySource: 'stdout', TimeGenerated: '2026-11-09T10:00:12Z' });

describe('lines a shipper carried as a string', () => {
  it("reads the record inside a Filebeat event, an Elasticsearch hit, a Vector event, a winston line, a Splunk export row, a Cloud Logging text entry and Azure Monitor's rows alike", async () => {
    const plain = await load([created, opened]);
    for (const lines of [
      [filebeat(json(created)), filebeat(json(opened))],
      [hit(JSON.parse(filebeat(json(created)))), hit(JSON.parse(filebeat(json(opened))))],
      [vector(json(created)), vector(`${json(opened)}\n`)],
      [json({ level: 'info', message: json(created), timestamp: T }), json({ level: 'info', message: json(opened), timestamp: T })],
      [splunk(json(created)), splunk(json(opened), 1)],
      [textEntry(`INFO ${json(created)}`), textEntry(json(opened))],
      [containerLogV2(created), containerLogV2(json(opened))],
      [containerLog(json(created)), containerLog(json(opened))],
    ]) {
      const got = await load(lines);
      expect(got.rows, lines[0]).toEqual(plain.rows);
      expect(got.stats).toMatchObject({ records: 2, ignored: 0, rejected: 0 });
    }
  });

  it("takes the shipper's time and host (or pod) where the record logs none, and the record's own where it does", async () => {
    const { ts: _ts, node: _n, ...bare } = opened;
    const got = await load([
      filebeat(json(created)),
      filebeat(json(bare)),
      filebeat(json(bare), { '@timestamp': '2026-11-09T10:00:07.5Z', kubernetes: { pod: { name: 'mcp-0' }, namespace: 'billing' } }),
      vector(json(bare)),
      splunk(json(bare)),
      textEntry(`INFO ${json(bare)}`),
      containerLogV2(bare),
      // The older table names the cluster node the pod ran on, which may run others: no node of the server's.
      containerLog(json(bare)),
    ]);
    expect(got.rows.map((r) => [iso(r.ts_ms), r.node])).toEqual([
      [T, 'mcp-a'],
      ['2026-11-09T10:00:07.125Z', 'web-1'],
      ['2026-11-09T10:00:07.500Z', 'mcp-0'],
      ['2026-11-09T10:00:08.500Z', 'web-2'],
      ['2026-11-09T10:00:09.000Z', 'web-3'],
      ['2026-11-09T10:00:10.000Z', 'mcp-7d9f5-x2kq8'],
      ['2026-11-09T10:00:11.250Z', 'mcp-6c4b8-p9m2z'],
      ['2026-11-09T10:00:12.000Z', null],
    ]);
  });

  it('reads an Elasticsearch hit whose shipper decoded the line: the record is its _source', async () => {
    const got = await load([hit(created), hit({ ...opened, '@timestamp': '2026-11-09T10:00:07.125Z', agent: { type: 'filebeat' } })]);
    expect(got.rows.map((r) => [r.kind, iso(r.ts_ms), r.session])).toEqual([
      ['session.created', T, 'S1'],
      ['stream.opened', '2026-11-09T10:00:00.260Z', 'S1'],
    ]);
  });

  it('reads a runtime line a shipper carried as it found it (a CRI line in a Filebeat event), and rejects a broken record inside', async () => {
    const { ts: _ts, ...untimed } = opened;
    const got = await load([filebeat(`2026-11-09T10:00:05.5Z stdout F ${json(untimed)}`), splunk('{"ts":"2026-11-09T10:00:02Z","kind":')]);
    expect(got.rows.map((r) => [r.kind, iso(r.ts_ms)])).toEqual([['stream.opened', '2026-11-09T10:00:05.500Z']]);
    expect(got.rejected).toEqual([{ line: 2, reason: expect.stringMatching(/^invalid JSON/) }]);
  });

  it("stores a credential inside the carried line redacted, the shipper's document kept around it", async () => {
    const secret = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';
    const rec = { ...created, headers: { authorization: `Bearer ${secret}` } };
    for (const line of [filebeat(json(rec)), hit(JSON.parse(filebeat(json(rec)))), splunk(json(rec)), containerLogV2(rec), vector(json(created)).replace('"source_type"', `"token":"${secret}","source_type"`)]) {
      const ws = await loadWorkspace([logSource([line])]);
      try {
        const raw = ws.db.prepare('SELECT raw FROM records').pluck().get() as string;
        expect(raw).not.toContain(secret);
        expect(raw).toContain('session.created');
        expect(raw.slice(0, 12)).toBe(line.slice(0, 12));
        // A line Azure kept parsed is stored as the object it was.
        if (line.includes('"LogMessage":{')) expect(JSON.parse(raw)).toMatchObject({ PodName: 'mcp-6c4b8-p9m2z', LogMessage: { kind: 'session.created', headers: {} } });
      } finally {
        ws.db.close();
      }
    }
  });
});

describe('near misses: documents that only look like a carried line', () => {
  const n = () => new LineNormalizer();

  it("a logger's sentence that merely holds an object is the application's output (ignored), as before", () => {
    expect(n().normalize(json({ level: 'error', message: `request failed: ${json(created)}`, timestamp: T }))).toEqual({ type: 'ignored' });
    expect(n().normalize(json({ level: 'info', message: 'server listening on :3000', '@timestamp': T, host: { name: 'web-1' } }))).toEqual({ type: 'ignored' });
  });

  it('a record with a kind of its own and a message is the record it is, not the line in its message', () => {
    expect(n().normalize(json({ ...created, message: json(opened) }))).toMatchObject({ type: 'records', records: [{ kind: 'session.created', session: 'S1' }] });
  });

  it('a `result` without `_raw` is no Splunk row, and a `_raw` that is no string carries no line', () => {
    expect(n().normalize(json({ preview: false, result: { message: 'x', host: 'web-3' } }))).toEqual({ type: 'ignored' });
    expect(n().normalize(json({ preview: false, result: { _raw: 42 } }))).toEqual({ type: 'ignored' });
  });
});
