import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/api.js';
import { PARTIAL_LINE } from '../../src/normalize/envelopes.js';
import { LineNormalizer } from '../../src/normalize/normalize-line.js';
import { logSource } from '../helpers/logs.js';
import { iso, load } from './rows.js';

// A server logs to stdout, and the export is what something else wrote around each line: a container
// runtime (CRI, Docker's json-file driver), kubectl logs --timestamps / --prefix, journalctl -o json.

const T = '2026-11-09T10:00:00.250Z';
const created = { ts: T, kind: 'session.created', session: 'S1', node: 'mcp-a' };
const opened = { ts: '2026-11-09T10:00:00.260Z', kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get', node: 'mcp-a' };
const json = (o: object) => JSON.stringify(o);
const cri = (o: object | string, tag = 'F', time = '2026-11-09T10:00:01.123456789Z') => `${time} stdout ${tag} ${typeof o === 'string' ? o : json(o)}`;
const docker = (log: string, time = '2026-11-09T10:00:01.123456789Z') => json({ log, stream: 'stdout', time });
/** As `journalctl -o json` writes an entry: the cursor, the time in µs, then the rest. */
const journal = (message: unknown, us = '1794218401123456', host = 'vm-7') =>
  json({ __CURSOR: 's=9f2c;i=1a2b', __REALTIME_TIMESTAMP: us, __MONOTONIC_TIMESTAMP: '8123456', _HOSTNAME: host, SYSLOG_IDENTIFIER: 'mcp', _PID: '812', MESSAGE: message });

/** As `logcli query --output=jsonl` writes a line: Go's sorted keys, the labels (unless --no-labels), the line, its time. */
const loki = (line: string, timestamp = '2026-11-09T11:00:01.123456789+01:00', labels: Record<string, string> | null = { app: 'mcp', namespace: 'billing', pod: 'mcp-0' }) =>
  json({ ...(labels && { labels }), line, timestamp });

/** As Fluent Bit's tail input (cri parser, Merge_Log off) and kubernetes filter make a container's line into a record. */
const fluentBit = (log: string, logtag = 'F', pod = 'mcp-0') =>
  json({ time: '2026-11-09T10:00:01.123456789Z', stream: 'stdout', logtag, log, kubernetes: { pod_name: pod, namespace_name: 'billing', host: 'ip-10-0-3-7', container_name: 'mcp' } });

describe('lines inside lines', () => {
  it('reads the record inside a CRI line, a Docker json-file line, kubectl --timestamps / --prefix lines and a journald entry alike', async () => {
    const plain = await load([created, opened]);
    for (const lines of [
      [cri(created), cri(opened)],
      [docker(`${json(created)}\n`), docker(`${json(opened)}\r\n`)],
      [`2026-11-09T10:00:01.1Z ${json(created)}`, `2026-11-09T10:00:01.2Z ${json(opened)}`],
      [`[pod/mcp-a-7d9f/mcp] ${json(created)}`, `[pod/mcp-a-7d9f/mcp] 2026-11-09T10:00:01.2Z ${json(opened)}`],
      [journal(json(created)), journal(json(opened))],
      [loki(json(created)), loki(json(opened), undefined, null)],
      [fluentBit(json(created)), fluentBit(`${json(opened)}\n`)],
    ]) {
      const got = await load(lines);
      expect(got.rows, lines[0]).toEqual(plain.rows);
      expect(got.stats).toMatchObject({ records: 2, ignored: 0, rejected: 0 });
    }
  });

  it('reads the record after text another writer put before it: syslog, aws logs tail, a logger\'s level', async () => {
    const plain = await load([created, opened]);
    for (const lines of [
      [`Nov  9 10:00:01 web-1 mcp[812]: ${json(created)}`, `Nov  9 10:00:01 web-1 mcp[812]: ${json(opened)}`],
      [`2026-11-09T10:00:01.123000+00:00 ecs/mcp/0a1b2c3d ${json(created)}`, `2026-11-09T10:00:01.124000+00:00 ecs/mcp/0a1b2c3d ${json(opened)}`],
      [`2026-11-09T10:00:01 ${json(created)}`, `2026-11-09 10:00:01,123 INFO  ${json(opened)}`],
      // AWS Lambda's runtimes, tab-separated: Node.js's time, request id and level; Python's level first.
      [`2026-11-09T10:00:01.123Z\t8f2c1a7e-5b7d-4c1e-9a0f-2b8e6d4c7a91\tINFO\t${json(created)}`, `[INFO]\t2026-11-09T10:00:01.124Z\t8f2c1a7e-5b7d-4c1e-9a0f-2b8e6d4c7a91\t${json(opened)}`],
    ]) {
      const got = await load(lines);
      expect(got.rows, lines[0]).toEqual(plain.rows);
      expect(got.stats).toMatchObject({ records: 2, ignored: 0, rejected: 0 });
    }
  });

  it("takes a Lambda line's time where the record logs none, inside a CloudWatch event too, and counts its runtime's own lines as ignored", async () => {
    const { ts: _ts, ...untimed } = opened;
    const lambda = (o: object | string, time = '2026-11-09T10:00:05.500Z') => `${time}\t8f2c1a7e-5b7d-4c1e-9a0f-2b8e6d4c7a91\tINFO\t${typeof o === 'string' ? o : json(o)}`;
    const event = (message: string) => json({ logStreamName: '2026/11/09/[$LATEST]0a1b2c3d', timestamp: 1794218409000, message: `${message}\n`, ingestionTime: 1794218409500 });
    const got = await load([lambda(created), lambda(untimed), event(lambda(untimed, '2026-11-09T10:00:06.250Z')), event('START RequestId: 8f2c1a7e Version: $LATEST')]);
    expect(got.rows.map((r) => [r.kind, iso(r.ts_ms), r.node])).toEqual([
      ['session.created', T, 'mcp-a'],
      ['stream.opened', '2026-11-09T10:00:05.500Z', 'mcp-a'],
      ['stream.opened', '2026-11-09T10:00:06.250Z', 'mcp-a'],
    ]);
    expect(got.stats).toMatchObject({ records: 3, ignored: 1, rejected: 0 });
  });

  it('takes no time from a prefix without its zone, nor a node from a prefix\'s words', async () => {
    const { ts: _ts, node: _n, ...bare } = opened;
    const got = await load([`2026-11-09 10:00:05 web-1 ${json(bare)}`, `2026-11-09T10:00:05.5Z web-1 ${json(bare)}`]);
    expect(got.rejected).toEqual([{ line: 1, reason: 'stream.opened: missing ts' }]);
    expect(got.rows.map((r) => [iso(r.ts_ms), r.node])).toEqual([['2026-11-09T10:00:05.500Z', null]]);
  });

  it("takes the runtime's time where the record logs none, and the record's own where it does", async () => {
    const { ts: _ts, ...untimed } = opened;
    const { rows } = await load([cri(created, 'F', '2026-11-09T10:00:09.000000001Z'), cri(untimed, 'F', '2026-11-09T10:00:05.5Z')]);
    expect(rows.map((r) => [r.kind, iso(r.ts_ms)])).toEqual([
      ['session.created', T],
      ['stream.opened', '2026-11-09T10:00:05.500Z'],
    ]);
  });

  it("takes kubectl --prefix's pod for the node where the record names none", async () => {
    const { node: _n, ...nameless } = opened;
    const { rows } = await load([`[pod/mcp-b-55c/mcp] ${json(created)}`, `[pod/mcp-b-55c/mcp] ${json(nameless)}`]);
    expect(rows.map((r) => r.node)).toEqual(['mcp-a', 'mcp-b-55c']);
  });

  it("takes docker compose's container for the node where the record names none, and its --timestamps time", async () => {
    const { ts: _ts, node: _n, ...bare } = opened;
    const { rows } = await load([`mcp-1  | ${json(created)}`, `mcp-2  | ${json({ ...bare, ts: opened.ts })}`, `billing_mcp_3  | 2026-11-09T10:00:05.5Z ${json(bare)}`]);
    expect(rows.map((r) => [r.kind, iso(r.ts_ms), r.node])).toEqual([
      ['session.created', T, 'mcp-a'],
      ['stream.opened', opened.ts, 'mcp-2'],
      ['stream.opened', '2026-11-09T10:00:05.500Z', 'billing_mcp_3'],
    ]);
    // near miss: a logger's level before a bar is no container (no replica number), and names no node
    // (two records: one record's text through two envelopes is one record delivered twice, read once)
    const level = await load([`INFO     | ${json({ ...bare, ts: opened.ts })}`, `web | ${json({ ...bare, stream: 'g2', ts: opened.ts })}`]);
    expect(level.rows.map((r) => r.node)).toEqual([null, null]);
  });

  it("takes Heroku's dyno and Fly's machine for the node, and their time, where the record names none", async () => {
    const { ts: _ts, node: _n, ...bare } = opened;
    const { rows } = await load([
      `2026-11-09T10:00:05.500000+00:00 app[web.2]: ${json(bare)}`,
      `2026-11-09T10:00:06.25Z app[148e2e0b] iad [info]${json(bare)}`,
      `2026-11-09T10:00:07Z app[web.1]: ${json(created)}`,
    ]);
    expect(rows.map((r) => [r.kind, iso(r.ts_ms), r.node])).toEqual([
      ['session.created', T, 'mcp-a'],
      ['stream.opened', '2026-11-09T10:00:05.500Z', 'web.2'],
      ['stream.opened', '2026-11-09T10:00:06.250Z', '148e2e0b'],
    ]);
    // near miss: a syslog program's pid in brackets (no time in front) names no node
    expect((await load([`Nov  9 10:00:01 web-1 app[812]: ${json({ ...bare, ts: opened.ts })}`])).rows.map((r) => r.node)).toEqual([null]);
  });

  it("takes logcli's time and the labels' pod (or instance, host) where the record logs none", async () => {
    const { ts: _ts, node: _n, ...bare } = opened;
    const { rows } = await load([
      loki(json(created)),
      loki(json(bare), '2026-11-09T11:00:05.5+01:00'),
      loki(json(bare), '2026-11-09T10:00:06Z', { job: 'mcp', instance: '10.0.3.7:3000' }),
      loki(json(bare), '2026-11-09T10:00:07Z', null),
    ]);
    expect(rows.map((r) => [iso(r.ts_ms), r.node])).toEqual([
      [T, 'mcp-a'],
      ['2026-11-09T10:00:05.500Z', 'mcp-0'],
      ['2026-11-09T10:00:06.000Z', '10.0.3.7:3000'],
      ['2026-11-09T10:00:07.000Z', null],
    ]);
  });

  it("takes a Fluent Bit record's time and pod where the record logs none, inside a CloudWatch event too", async () => {
    const { ts: _ts, node: _n, ...bare } = opened;
    // another stream's record: the same record's text through two envelopes would be one record delivered twice
    const inCloudWatch = json({ logStreamName: 'from-fluent-bit', timestamp: 1794218409000, message: fluentBit(json({ ...bare, stream: 'g2' }), 'F', 'mcp-2'), ingestionTime: 1794218409500 });
    const { rows, stats } = await load([fluentBit(json(created)), fluentBit(json(bare), 'F', 'mcp-1'), inCloudWatch]);
    expect(rows.map((r) => [iso(r.ts_ms), r.node])).toEqual([
      [T, 'mcp-a'],
      ['2026-11-09T10:00:01.123Z', 'mcp-1'],
      // the innermost envelope's pod and time, not the CloudWatch stream's
      ['2026-11-09T10:00:01.123Z', 'mcp-2'],
    ]);
    expect(stats).toMatchObject({ records: 3, rejected: 0 });
  });

  it("rejects a Fluent Bit record of a partial line (logtag P), and stores one's credentials redacted, the pod's annotations' too", async () => {
    expect((await load([fluentBit('{"ts":"2026-11-09T10:00:00Z","ki', 'P')])).rejected).toEqual([{ line: 1, reason: PARTIAL_LINE }]);
    const secret = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';
    const line = json({ log: json(created), stream: 'stdout', kubernetes: { pod_name: 'mcp-0', annotations: { 'vault.example.com/token': secret } } });
    const ws = await loadWorkspace([logSource([line])]);
    try {
      const raw = ws.db.prepare('SELECT raw FROM records').pluck().get() as string;
      expect(raw).not.toContain(secret);
      expect(JSON.parse(raw)).toMatchObject({ kubernetes: { pod_name: 'mcp-0' }, log: expect.stringContaining('session.created') });
    } finally {
      ws.db.close();
    }
  });

  it('reads a line inside two envelopes (a CRI line promtail sent to Loki as it found it, a json-file line in a CloudWatch event), the inner time first', async () => {
    const { ts: _ts, node: _n, ...bare } = opened;
    const got = await load([
      loki(cri(created)),
      loki(cri(bare, 'F', '2026-11-09T10:00:05.5Z')),
      json({ logStreamName: 'ecs/mcp/0a1b', timestamp: 1794218409000, message: docker(`${json(bare)}\n`, '2026-11-09T10:00:06.25Z'), ingestionTime: 1794218409500 }),
    ]);
    expect(got.rows.map((r) => [iso(r.ts_ms), r.node])).toEqual([
      [T, 'mcp-a'],
      ['2026-11-09T10:00:05.500Z', 'mcp-0'],
      ['2026-11-09T10:00:06.250Z', 'ecs/mcp/0a1b'],
    ]);
    // A piece inside an envelope cannot be joined: rejected as one.
    expect((await load([loki(cri('{"ts":"2026-11-09T10:00:00Z","ki', 'P'))])).rejected).toEqual([{ line: 1, reason: PARTIAL_LINE }]);
    // Three deep is past what is read: the line is the object it is (no kind: ignored).
    expect((await load([loki(loki(loki(json(created))))])).stats).toMatchObject({ records: 0, ignored: 1 });
  });

  it("takes journald's time (to the microsecond) and host where the record logs none, and reads a message kept as bytes", async () => {
    const { ts: _ts, node: _n, ...bare } = opened;
    const { rows } = await load([journal(json(created)), journal([...Buffer.from(json(bare))], '1794218405500250', 'vm-9')]);
    expect(rows.map((r) => [r.kind, iso(r.ts_ms), r.node])).toEqual([
      ['session.created', T, 'mcp-a'],
      ['stream.opened', '2026-11-09T10:00:05.500Z', 'vm-9'],
    ]);
  });

  it("counts the application's other output (a banner, a stack trace) as ignored, and a broken record as rejected", async () => {
    const got = await load([cri('server listening on :3000'), docker('    at Server.listen (node:net:1)\n'), cri(created), cri('{"ts":"2026-11-09T10:00:02Z","kind":')]);
    expect(got.stats).toMatchObject({ lines: 4, records: 1, ignored: 2, rejected: 1 });
    expect(got.rejected).toEqual([{ line: 4, reason: expect.stringMatching(/^invalid JSON/) }]);
  });

  // A line the runtime split into pieces: test/formats/line-pieces.test.ts.

  it('stores a credential inside the wrapped line redacted, the envelope kept around it', async () => {
    const secret = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';
    const rec = { ...created, headers: { authorization: `Bearer ${secret}` } };
    const cloudWatch = json({ logStreamName: 'ecs/mcp/0a1b', timestamp: 1794218400250, message: `${json(rec)}\n`, ingestionTime: 1794218401000 });
    for (const line of [cri(rec), docker(`${json(rec)}\n`), journal(json(rec)), loki(json(rec)), cloudWatch, loki(cri(rec))]) {
      const ws = await loadWorkspace([logSource([line])]);
      try {
        const raw = ws.db.prepare('SELECT raw FROM records').pluck().get() as string;
        expect(raw).not.toContain(secret);
        expect(raw.startsWith(line.slice(0, 20))).toBe(true);
        if (line.startsWith('{"log"')) expect(JSON.parse(raw)).toMatchObject({ stream: 'stdout', log: expect.stringMatching(/\n$/) });
        if (line.startsWith('{"__')) expect(JSON.parse(raw)).toMatchObject({ _HOSTNAME: 'vm-7', MESSAGE: expect.stringContaining('session.created') });
        if (line.startsWith('{"labels"')) expect(JSON.parse(raw)).toMatchObject({ labels: { pod: 'mcp-0' }, line: expect.stringContaining('session.created') });
        if (line.startsWith('{"logStreamName"')) expect(JSON.parse(raw)).toMatchObject({ logStreamName: 'ecs/mcp/0a1b', message: expect.stringMatching(/session\.created.*\n$/s) });
      } finally {
        ws.db.close();
      }
    }
  });
});

describe('near misses: lines that only look wrapped', () => {
  const n = () => new LineNormalizer();

  it('a record with a `log` field of its own is read as the record it is', () => {
    const out = n().normalize(json({ log: 'x', ...created }));
    expect(out).toMatchObject({ type: 'records', records: [{ kind: 'session.created', session: 'S1' }] });
  });

  it('an object shaped like Docker but with other keys is no Docker line', () => {
    const out = n().normalize(json({ log: `${json(created)}\n`, stream: 'stdout', time: T, kind: 'session.created', session: 'S9' }));
    expect(out).toMatchObject({ type: 'records', records: [{ kind: 'session.created', session: 'S9' }] });
  });

  it('an object with a `line` of its own and other keys, or a `line` that is no string, is no logcli line', () => {
    expect(n().normalize(json({ line: 42, ...created }))).toMatchObject({ type: 'records', records: [{ kind: 'session.created', session: 'S1' }] });
    expect(n().normalize(json({ labels: { pod: 'x' }, line: json(created), timestamp: T, kind: 'stream.closed', session: 'S7', stream: 'g1' }))).toMatchObject({
      type: 'records',
      records: [{ kind: 'stream.closed', session: 'S7' }],
    });
  });

  it('a record that logs `timestamp` first is no CloudWatch event, nor is an event whose time is no number', () => {
    const { ts, ...rest } = created;
    expect(n().normalize(json({ timestamp: ts, ...rest, message: 'hello' }))).toMatchObject({ type: 'records', records: [{ kind: 'session.created', session: 'S1' }] });
    // Its message is still a line a shipper carried (shipped-lines.test.ts), but its log stream names no node.
    const { node: _n, ...nodeless } = created;
    const out = n().normalize(json({ logStreamName: 'ecs/x', timestamp: 'soon', message: json(nodeless), ingestionTime: 1 }));
    expect(out).toMatchObject({ type: 'records', records: [{ kind: 'session.created' }] });
    expect(out.type === 'records' && out.records[0]!.node).toBeUndefined();
  });

  it('a record with a `log` string and a kind of its own, or a `log` without a stream, tag or pod, is no Fluent Bit record', () => {
    expect(n().normalize(json({ ...created, log: json(opened), stream: 'stdout' }))).toMatchObject({ type: 'records', records: [{ kind: 'session.created' }] });
    expect(n().normalize(json({ level: 'info', log: json(created) }))).toEqual({ type: 'ignored' });
  });

  it('a journald-looking object without its time, or without a message, is read as the object it is', () => {
    expect(n().normalize(json({ __CURSOR: 's=1', MESSAGE: json(created) }))).toEqual({ type: 'ignored' });
    expect(n().normalize(json({ __CURSOR: 's=1', __REALTIME_TIMESTAMP: '1794218401123456', ...created }))).toMatchObject({
      type: 'records',
      records: [{ kind: 'session.created', session: 'S1' }],
    });
  });

  it('text with a brace but no JSON object after it is still invalid JSON', () => {
    expect(n().normalize('12345 {not json}')).toMatchObject({ type: 'rejected', reason: expect.stringMatching(/^invalid JSON/) });
    expect(n().normalize('Error: unexpected { in config')).toMatchObject({ type: 'rejected', reason: expect.stringMatching(/^invalid JSON/) });
    // Tab-separated fields before no object, and no time in front to make it a Lambda line: the same.
    expect(n().normalize('ERROR\t8f2c1a7e\t{not json}')).toMatchObject({ type: 'rejected', reason: expect.stringMatching(/^invalid JSON/) });
  });

  it('a JSON array holding objects is JSON as ever (ignored), not text before an object', () => {
    expect(n().normalize(`[1, ${json(created)}]`)).toEqual({ type: 'ignored' });
  });

  it('a bracket that is no kubectl pod prefix is JSON as ever (an array: ignored)', () => {
    expect(n().normalize(`[${json(created)}]`)).toEqual({ type: 'ignored' });
  });
});
