import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generate } from '../../bench/generate.js';
import { cli } from '../cli/run-cli.js';
import { iso, load, ofKind } from './rows.js';

// OTLP/JSON log exports: one ExportLogsServiceRequest per line (the collector's
// file exporter), or one flattened log record per line.

const T0 = Date.parse('2026-11-09T10:00:00.000Z');
const S = 'e5a1c7d2-90b4-4f3a-b8e6-1d2c3f4a5b6c';

const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n + 123_456n}`;
const str = (v: string) => ({ stringValue: v });
const int = (v: number) => ({ intValue: String(v) });
type AnyValue = Record<string, unknown>;
const attrs = (o: Record<string, AnyValue>) => Object.entries(o).map(([key, value]) => ({ key, value }));

function logRecord(ms: number, a: Record<string, AnyValue>, body: AnyValue = str('')) {
  return { timeUnixNano: nanos(ms), observedTimeUnixNano: nanos(ms + 5), severityText: 'INFO', body, attributes: attrs(a) };
}

function exportLine(resource: Record<string, AnyValue>, records: unknown[]) {
  return { resourceLogs: [{ resource: { attributes: attrs(resource) }, scopeLogs: [{ scope: { name: 'mcp' }, logRecords: records }] }] };
}

const RESOURCE = { 'service.name': str('mcp-tools'), 'service.instance.id': str('mcp-0'), 'host.name': str('node-a') };

describe('OTLP JSON through the pipeline', () => {
  it('turns two log records of one line into two records, with kind, session, ids, time and node', async () => {
    const { rows, stats } = await load([
      exportLine(RESOURCE, [
        logRecord(T0, { 'event.name': str('stream.opened'), 'mcp.session.id': str(S), stream: str('g1'), via: str('get') }),
        logRecord(T0 + 1000, { kind: str('event.sent'), 'mcp.session.id': str(S), stream: str('g1'), event_id: int(7), 'mcp.method.name': str('notifications/progress') }),
      ]),
    ]);
    expect(stats).toMatchObject({ lines: 1, recordLines: 1, records: 2, format: 'otlp' });
    expect(rows.map((r) => [r.kind, r.session, r.stream, r.event_id, r.method, r.node, r.line])).toEqual([
      ['stream.opened', S, 'g1', null, null, 'mcp-0', 1],
      ['event.sent', S, 'g1', '7', 'notifications/progress', 'mcp-0', 1],
    ]);
    // Nanoseconds truncate to the millisecond.
    expect(rows.map((r) => iso(r.ts_ms))).toEqual([iso(T0), iso(T0 + 1000)]);
  });

  it('reads a batch as the collector\'s file exporter writes it by default: 8,192 records, a line of megabytes', async () => {
    const records = Array.from({ length: 8192 }, (_, i) =>
      logRecord(T0 + i, { 'event.name': str('event.sent'), 'mcp.session.id': str(S), stream: str('g1'), event_id: int(i + 1), 'mcp.method.name': str('notifications/progress') }),
    );
    const line = exportLine(RESOURCE, records);
    expect(JSON.stringify(line).length).toBeGreaterThan(2 * 1024 * 1024);
    const { rows, stats, rejected } = await load([line]);
    expect(rejected).toEqual([]);
    expect(stats).toMatchObject({ lines: 1, recordLines: 1, records: 8192 });
    expect(rows.at(-1)).toMatchObject({ kind: 'event.sent', event_id: '8192', line: 1 });
  });

  it('takes the kind from resumescope.kind, eventName or a body naming a known kind, and skips records that name none', async () => {
    const { rows, stats } = await load([
      exportLine(RESOURCE, [
        logRecord(T0, { 'resumescope.kind': str('session.created'), 'mcp.session.id': str(S), principal: str('alice') }),
        { ...logRecord(T0 + 1, { 'mcp.session.id': str(S), reason: str('client_delete') }), eventName: 'session.terminated' },
        logRecord(T0 + 2, { 'mcp.session.id': str(S), stream: str('g1') }, str('stream.fenced')),
        logRecord(T0 + 3, { 'http.route': str('/mcp') }, str('GET /mcp 200 in 2ms')),
        logRecord(T0 + 4, { kind: str('server'), 'event.name': str('gc.pause') }),
      ]),
    ]);
    expect(stats.records).toBe(3);
    expect(rows.map((r) => [r.kind, r.principal])).toEqual([
      ['session.created', 'alice'],
      ['session.terminated', null],
      ['stream.fenced', null],
    ]);
  });

  it('counts a line whose records name no known kind as ignored', async () => {
    const { stats } = await load([
      exportLine(RESOURCE, [logRecord(T0, { 'mcp.session.id': str(S), stream: str('g1'), kind: str('upgrade'), decision: str('attach'), status: int(200) })]),
      exportLine(RESOURCE, [logRecord(T0 + 1, {}, str('cache warm: 412 entries')), logRecord(T0 + 2, {}, str('slow upstream'))]),
    ]);
    expect(stats).toMatchObject({ lines: 2, recordLines: 1, ignored: 1, rejected: 0 });
  });

  it('decodes bool, double, array and kvlist values, and a structured body', async () => {
    const { rows } = await load([
      exportLine(RESOURCE, [
        logRecord(T0, { kind: str('event.sent'), attached: { boolValue: false }, seq: { doubleValue: 4 } }, {
          kvlistValue: { values: attrs({ session: str(S), stream: str('g1'), event_id: str('e-9') }) },
        }),
        logRecord(T0 + 1, {
          kind: str('upgrade'),
          session: str(S),
          last_event_id: str('e-9'),
          decision: str('resume'),
          status: int(200),
          replayed: int(0),
          replayed_ids: { arrayValue: { values: [] } },
        }),
      ]),
    ]);
    expect(rows.map((r) => [r.kind, r.session, r.event_id ?? r.last_event_id])).toEqual([
      ['event.sent', S, 'e-9'],
      ['upgrade', S, 'e-9'],
    ]);
  });

  it('reads a flattened log record per line, with the resource beside it', async () => {
    const flat = {
      ...logRecord(T0, { 'event.name': str('session.evicted'), 'mcp.session.id': str(S), reason: str('idle_timeout'), log_evicted: { boolValue: true } }),
      resource: { attributes: attrs({ 'host.name': str('node-b') }) },
    };
    const { rows, stats } = await load([flat]);
    expect(stats.format).toBe('otlp');
    expect(rows.map((r) => [r.kind, r.session, r.node])).toEqual([['session.evicted', S, 'node-b']]);
  });

  it('reads the snake_case field names of the protobuf JSON mapping', async () => {
    const line = {
      resource_logs: [{
        resource: { attributes: [{ key: 'service.instance.id', value: { string_value: 'mcp-1' } }] },
        scope_logs: [{ log_records: [{ time_unix_nano: nanos(T0), attributes: [
          { key: 'event.name', value: { string_value: 'session.created' } },
          { key: 'mcp.session.id', value: { string_value: S } },
          { key: 'seq', value: { int_value: '3' } },
        ] }] }],
      }],
    };
    const { rows } = await load([line]);
    expect(rows.map((r) => [r.kind, r.session, r.node, r.ts_ms])).toEqual([['session.created', S, 'mcp-1', T0]]);
  });

  it('falls back to observedTimeUnixNano when timeUnixNano is 0 (unknown)', async () => {
    const rec = { ...logRecord(T0, { kind: str('session.created'), 'mcp.session.id': str(S) }), timeUnixNano: '0' };
    const { rows } = await load([exportLine(RESOURCE, [rec])]);
    expect(iso(rows[0]!.ts_ms)).toBe(iso(T0 + 5));
  });

  it('maps HTTP semantic-convention attributes of an http record, so proxy inference applies', async () => {
    const { rows } = await load([
      exportLine(RESOURCE, [
        logRecord(T0, {
          kind: str('http'),
          'http.request.method': str('GET'),
          'url.path': str('/mcp'),
          'http.response.status_code': int(200),
          'http.request.header.mcp-session-id': { arrayValue: { values: [str(S)] } },
          'http.request.header.last-event-id': { arrayValue: { values: [str('41')] } },
          'http.response.header.content-type': { arrayValue: { values: [str('text/event-stream')] } },
        }),
        logRecord(T0 + 10, {
          kind: str('http'),
          'http.request.method': str('POST'),
          'url.path': str('/mcp'),
          'http.response.status_code': int(404),
          'http.request.header.mcp-session-id': { arrayValue: { values: [str(S)] } },
          rpc_kind: str('response'),
          rpc_id: int(3),
        }),
      ]),
    ]);
    expect(ofKind(rows, 'upgrade').map((r) => [r.decision, r.session, r.last_event_id, r.status])).toEqual([['resume', S, '41', 200]]);
    expect(ofKind(rows, 'request.answered').map((r) => [r.session, r.request_id, r.status])).toEqual([[S, '3', 404]]);
    expect(ofKind(rows, 'http').map((r) => r.session)).toEqual([S, S]);
  });

  it('reads the other records of a batch one of whose records is bad, and rejects the line with the reason', async () => {
    const { rows, stats, rejected } = await load([
      exportLine(RESOURCE, [
        logRecord(T0, { kind: str('event.sent'), 'mcp.session.id': str(S), stream: str('g1'), event_id: int(1) }),
        logRecord(T0 + 1, { kind: str('event.sent'), 'mcp.session.id': str(S), stream: str('g1') }),
        logRecord(T0 + 2, { kind: str('event.sent'), 'mcp.session.id': str(S), stream: str('g1'), event_id: int(3) }),
        logRecord(T0 + 3, { kind: str('stream.opened'), stream: str('g2') }),
      ]),
    ]);
    expect(rows.map((r) => [r.kind, r.event_id, r.line])).toEqual([['event.sent', '1', 1], ['event.sent', '3', 1]]);
    expect(stats).toMatchObject({ lines: 1, recordLines: 0, records: 2, ignored: 0, rejected: 1 });
    expect(rejected).toEqual([
      { line: 1, reason: expect.stringMatching(/^otlp: record 2 of 4: event\.sent: missing required field event_id.* \(and 1 more\); its other 2 records were read$/) },
    ]);
  });

  it('is usable when every line is a batch rejected in part: its records are read, and the run says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-partial-'));
    try {
      const file = join(dir, 'export.ndjson');
      const batch = (t: number) => exportLine(RESOURCE, [
        logRecord(t, { kind: str('session.created'), 'mcp.session.id': str(`S${t}`) }),
        logRecord(t + 1, { kind: str('event.sent'), 'mcp.session.id': str(`S${t}`), stream: str('g1') }),
      ]);
      writeFileSync(file, [batch(T0), batch(T0 + 10)].map((b) => JSON.stringify(b)).join('\n') + '\n');
      const run = await cli('analyze', file, '--format', 'json');
      expect(run.code).toBe(0);
      expect(run.err).toMatch(/2 of 2 lines rejected \(first: line 1: otlp: record 2 of 2: event\.sent: missing required field event_id/);
      expect(JSON.parse(run.out).summary).toMatchObject({ records: 2, sessions: 2 });
      expect((await cli('ingest', file)).out).toBe(`${file}: 2 records from 2 lines (0 read, 0 ignored, 2 rejected) (otlp)\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects the line, naming the format, when a record of a known kind lacks a required field', async () => {
    const { stats, rejected } = await load([exportLine(RESOURCE, [logRecord(T0, { kind: str('event.sent'), 'mcp.session.id': str(S), stream: str('g1') })])]);
    expect(stats.rejected).toBe(1);
    expect(rejected[0]!.reason).toMatch(/^otlp: event\.sent: missing required field event_id/);
  });
});

/** A spec-dialect record as an OTLP log record: its fields as attributes, objects as kvlists. */
function asOtlpRecord(line: string) {
  const { ts, ...fields } = JSON.parse(line) as Record<string, unknown>;
  const value = (v: unknown): AnyValue =>
    typeof v === 'string' ? str(v)
    : typeof v === 'boolean' ? { boolValue: v }
    : typeof v === 'number' ? (Number.isInteger(v) ? int(v) : { doubleValue: v })
    : Array.isArray(v) ? { arrayValue: { values: v.map(value) } }
    : { kvlistValue: { values: attrs(Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, value(x)]))) } };
  const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null).map(([k, v]) => [k, value(v)]));
  return { timeUnixNano: nanos(Date.parse(String(ts))), attributes: attrs(set) };
}

describe('an export as the OpenTelemetry collector writes it', () => {
  it('is judged as its NDJSON is, and its evidence summed up by the records cited', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-collector-'));
    try {
      const ndjson = join(dir, 'server.ndjson');
      await generate(ndjson, 10_000, { shape: 'bad-server', seed: 5 });
      const lines = readFileSync(ndjson, 'utf8').trim().split('\n');
      const exported = join(dir, 'collector.ndjson');
      // one batch of up to 8,192 records a line, the collector's default
      const batches = Array.from({ length: Math.ceil(lines.length / 8192) }, (_, i) => lines.slice(i * 8192, (i + 1) * 8192).map(asOtlpRecord));
      writeFileSync(exported, batches.map((b) => JSON.stringify(exportLine(RESOURCE, b))).join('\n') + '\n');
      const judged = async (file: string) => JSON.parse((await cli('analyze', file, '--format', 'json')).out).findings.map(
        (f: { rule: string; session: string; at: string; message: string }) => [f.rule, f.session, f.at, f.message]);
      const findings = await judged(ndjson);
      expect(findings.length).toBeGreaterThan(50);
      expect(await judged(exported)).toEqual(findings);
      // file:line and a batch line's count of the others aside, the text report reads the same
      const evidence = async (file: string) => (await cli('analyze', file, '--max-findings', '3')).out.split('\n')
        .filter((l) => /^ {8}\S+:\d+ {2}/.test(l)).map((l) => l.replace(/^ +\S+:\d+ {2}/, '').replace(/ \(\+ .*$| …$/, ''));
      const quoted = await evidence(ndjson);
      expect(quoted.length).toBeGreaterThan(20);
      expect(await evidence(exported)).toEqual(quoted);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

