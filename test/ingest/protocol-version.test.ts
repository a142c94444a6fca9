import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/api.js';
import { render } from '../../src/render/index.js';
import { INPUT_FORMATS } from '../../src/normalize/formats/index.js';
import { loadMapping } from '../../src/normalize/formats/mapping.js';
import { LineNormalizer } from '../../src/normalize/normalize-line.js';
import { MAX_STREAMS, StatelessStreams } from '../../src/store/stateless-streams.js';
import { analyzeLines, at, logSource, type LogLine } from '../helpers/logs.js';

// Log format version 2: protocol_version (and its aliases), records of a
// 2026-07-28 request without a session, poll closes and priming events.

async function rows(lines: LogLine[]) {
  const ws = await loadWorkspace([logSource(lines)]);
  try {
    const recs = ws.db
      .prepare('SELECT kind, session, protocol_version, retry_ms, priming, reason FROM records ORDER BY ts_ms, id')
      .all() as { kind: string; session: string | null; protocol_version: string | null; retry_ms: number | null; priming: number | null; reason: string | null }[];
    return { recs, rejected: ws.db.prepare('SELECT line, reason FROM rejected_lines').all() };
  } finally {
    ws.db.close();
  }
}

describe('protocol_version at ingest', () => {
  it('reads protocol_version under each alias, and in a wrapper object', async () => {
    const { recs, rejected } = await rows([
      { ts: at(0), kind: 'session.created', session: 'A', protocol_version: '2025-11-25' },
      { ts: at(1), kind: 'session.created', session: 'B', protocolVersion: '2025-06-18' },
      { ts: at(2), kind: 'session.created', session: 'C', mcp_protocol_version: '2025-03-26' },
      { ts: at(3), kind: 'session.created', session: 'D', 'mcp.protocol.version': '2025-11-25' },
      { ts: at(4), msg: 'session.created', mcp: { session: 'E', protocol: { version: '2025-11-25' } } },
    ]);
    expect(rejected).toEqual([]);
    expect(recs.map((r) => [r.session, r.protocol_version])).toEqual([
      ['A', '2025-11-25'],
      ['B', '2025-06-18'],
      ['C', '2025-03-26'],
      ['D', '2025-11-25'],
      ['E', '2025-11-25'],
    ]);
  });

  it('keeps records of a 2026-07-28 request without a session, and still rejects a pre-2026 record without one', async () => {
    const { recs, rejected } = await rows([
      { ts: at(0), kind: 'call', rpc_id: 1, method: 'tools/call', tool: 't', status: 200, protocol_version: '2026-07-28' },
      { ts: at(1), kind: 'stream.opened', session: null, stream: 'p1', via: 'post', protocol_version: '2026-07-28' },
      { ts: at(2), kind: 'event.sent', stream: 'p1', event_id: 'e1', rpc_kind: 'response', rpc_id: 1, protocol_version: '2026-07-28' },
      { ts: at(3), kind: 'stream.closed', stream: 'p1', reason: 'client', protocol_version: '2026-07-28' },
      { ts: at(4), kind: 'call', rpc_id: 2, method: 'tools/call', status: 200, protocol_version: '2025-11-25' },
      { ts: at(5), kind: 'call', rpc_id: 3, method: 'tools/call', status: 200 },
      // not a date: no revision, though "n/a" sorts after every date
      { ts: at(6), kind: 'call', rpc_id: 4, method: 'tools/call', status: 200, protocol_version: 'n/a' },
    ]);
    expect(recs.map((r) => [r.kind, r.session])).toEqual([
      ['call', null],
      ['stream.opened', null],
      ['event.sent', null],
      ['stream.closed', null],
    ]);
    expect(rejected).toEqual([
      { line: 5, reason: 'call: missing required field session' },
      { line: 6, reason: 'call: missing required field session' },
      { line: 7, reason: 'call: missing required field session' },
    ]);
  });

  it('keeps the later records of a stateless stream that carry no version: they inherit their stream\'s', async () => {
    const { recs, rejected } = await rows([
      { ts: at(0), kind: 'call', rpc_id: 1, method: 'tools/call', tool: 't', status: 200, protocol_version: '2026-07-28' },
      { ts: at(1), kind: 'stream.opened', stream: 'p1', via: 'post', protocol_version: '2026-07-28' },
      { ts: at(2), kind: 'event.sent', stream: 'p1', event_id: 'e1', rpc_kind: 'notification' },
      { ts: at(3), kind: 'event.sent', session: null, stream: 'p1', event_id: 'e2', rpc_kind: 'response', rpc_id: 1 },
      { ts: at(4), kind: 'stream.closed', stream: 'p1', reason: 'server' },
      // closed: nothing inherits from it any more; nor from a stream never named stateless, nor from a pre-2026 one
      { ts: at(5), kind: 'event.sent', stream: 'p1', event_id: 'e3', rpc_kind: 'notification' },
      { ts: at(6), kind: 'stream.opened', stream: 'p2', via: 'post' },
      { ts: at(7), kind: 'stream.opened', stream: 'p3', via: 'post', protocol_version: '2025-11-25' },
      { ts: at(8), kind: 'event.sent', stream: 'p3', event_id: 'e1', rpc_kind: 'notification' },
    ]);
    expect(recs.map((r) => [r.kind, r.session, r.protocol_version])).toEqual([
      ['call', null, '2026-07-28'],
      ['stream.opened', null, '2026-07-28'],
      ['event.sent', null, null],
      ['event.sent', null, null],
      ['stream.closed', null, null],
    ]);
    expect(rejected).toEqual([
      { line: 6, reason: 'event.sent: missing required field session' },
      { line: 7, reason: 'stream.opened: missing required field session' },
      { line: 8, reason: 'stream.opened: missing required field session' },
      { line: 9, reason: 'event.sent: missing required field session' },
    ]);
  });

  it('keeps a stateless-era event.sent without event_id (2026-07-28 removed SSE event ids), by its own version or its stream\'s', async () => {
    const { recs, rejected } = await rows([
      { ts: at(0), kind: 'stream.opened', stream: 'p1', via: 'post', protocol_version: '2026-07-28' },
      { ts: at(1), kind: 'event.sent', stream: 'p1', rpc_kind: 'response', rpc_id: 1, protocol_version: '2026-07-28' },
      { ts: at(2), kind: 'event.sent', stream: 'p1', event_id: null, rpc_kind: 'notification' },
      { ts: at(3), kind: 'event.sent', session: 'S1', stream: 'g1', rpc_kind: 'notification', protocol_version: '2026-07-28' },
    ]);
    expect(rejected).toEqual([]);
    expect(recs.map((r) => [r.kind, r.session])).toEqual([['stream.opened', null], ['event.sent', null], ['event.sent', null], ['event.sent', 'S1']]);
  });

  it('near misses: an event.sent without event_id of an earlier revision, or of no version in a session, is still rejected', async () => {
    const { recs, rejected } = await rows([
      { ts: at(0), kind: 'session.created', session: 'S1' },
      { ts: at(1), kind: 'event.sent', session: 'S1', stream: 'g1', rpc_kind: 'notification', protocol_version: '2025-11-25' },
      { ts: at(2), kind: 'event.sent', session: 'S1', stream: 'g1', rpc_kind: 'notification' },
      { ts: at(3), kind: 'event.replayed', stream: 'g1', protocol_version: '2026-07-28' },
    ]);
    expect(recs.map((r) => r.kind)).toEqual(['session.created']);
    expect(rejected).toEqual([
      { line: 2, reason: 'event.sent: missing required field event_id' },
      { line: 3, reason: 'event.sent: missing required field event_id' },
      { line: 4, reason: 'event.replayed: missing required field event_id' },
    ]);
  });

  it('rejects a record that inherits but lacks another field, for that field; and a repeat of a rejected line again', async () => {
    const noId = JSON.stringify({ ts: at(2), kind: 'event.sent', stream: 'p9', rpc_kind: 'notification' });
    const { rejected } = await rows([
      { ts: at(1), kind: 'stream.opened', stream: 'p1', via: 'post', protocol_version: '2026-07-28' },
      { ts: at(2), kind: 'stream.opened', stream: 'p1' },
      noId,
      noId,
    ]);
    expect(rejected).toEqual([
      { line: 2, reason: 'stream.opened: missing required field via' },
      { line: 3, reason: 'event.sent: missing required field session' },
      { line: 4, reason: 'event.sent: missing required field session' },
    ]);
  });

  // An OTLP export request holds many records: those that inherit are settled in their order within it.
  const otlpLine = (records: Record<string, string>[]) =>
    JSON.stringify({
      resourceLogs: [{ scopeLogs: [{ logRecords: records.map((r, i) => ({
        timeUnixNano: String((Date.parse(at(10)) + i) * 1e6),
        attributes: Object.entries(r).map(([key, v]) => ({ key, value: { stringValue: v } })),
      })) }] }],
    });

  it('otlp: reads the records of a batch line that inherit from a stream an earlier record of the line named', async () => {
    const { recs, rejected } = await rows([
      otlpLine([
        { kind: 'stream.opened', stream: 'p1', via: 'post', 'mcp.protocol.version': '2026-07-28' },
        { kind: 'event.sent', stream: 'p1', event_id: 'e1' },
        { kind: 'stream.closed', stream: 'p1', reason: 'server' },
      ]),
    ]);
    expect(rejected).toEqual([]);
    expect(recs.map((r) => r.kind)).toEqual(['stream.opened', 'event.sent', 'stream.closed']);
  });

  it('otlp: a batch line whose records cannot inherit is rejected in part, counting them with its other bad records', async () => {
    const { recs, rejected } = await rows([
      otlpLine([
        { kind: 'stream.opened', stream: 'p1', via: 'post', 'mcp.protocol.version': '2026-07-28' },
        { kind: 'event.sent', stream: 'p2', event_id: 'e1' },
        { kind: 'event.sent', session: 'S1', stream: 'g1' },
        { kind: 'event.sent', stream: 'p1', event_id: 'e2' },
      ]),
      otlpLine([{ kind: 'event.sent', stream: 'p2', event_id: 'e3' }]),
    ]);
    expect(recs.map((r) => r.kind)).toEqual(['stream.opened', 'event.sent']);
    expect(rejected).toEqual([
      { line: 1, reason: 'otlp: record 2 of 4: event.sent: missing required field session (and 1 more); its other 2 records were read' },
      { line: 2, reason: 'otlp: event.sent: missing required field session' },
    ]);
  });

  it('inherits a stateless stream\'s version within its own file only', async () => {
    const ws = await loadWorkspace([
      logSource([{ ts: at(1), kind: 'stream.opened', stream: 'p1', via: 'post', protocol_version: '2026-07-28' }], 'a.ndjson'),
      logSource([{ ts: at(2), kind: 'event.sent', stream: 'p1', event_id: 'e1', rpc_kind: 'notification' }], 'b.ndjson'),
    ]);
    try {
      expect(ws.db.prepare('SELECT line, reason FROM rejected_lines').all()).toEqual([{ line: 1, reason: 'event.sent: missing required field session' }]);
    } finally {
      ws.db.close();
    }
  });

  it('remembers at most MAX_STREAMS stateless streams at once: the oldest is forgotten first', () => {
    const streams = new StatelessStreams();
    for (let i = 0; i <= MAX_STREAMS; i++) streams.note('stream.opened', `p${i}`, '2026-07-28');
    expect([streams.inherited('p1'), streams.inherited('p0')]).toEqual(['2026-07-28', undefined]);
  });

  it('reads a poll close with retry_ms and a priming event', async () => {
    const { recs, rejected } = await rows([
      { ts: at(0), kind: 'event.sent', session: 'S', stream: 'p1', event_id: 'e0', priming: true },
      { ts: at(1), kind: 'stream.closed', session: 'S', stream: 'p1', reason: 'poll', retry_ms: 1000 },
    ]);
    expect(rejected).toEqual([]);
    expect(recs.map((r) => [r.kind, r.priming, r.reason, r.retry_ms])).toEqual([
      ['event.sent', 1, null, null],
      ['stream.closed', null, 'poll', 1000],
    ]);
  });
});

describe('protocol_version from the proxy adapters', () => {
  const T = '2026-11-09T10:00:00.000Z';
  const normalize = (lines: unknown[], formats = INPUT_FORMATS) => {
    const n = new LineNormalizer(undefined, formats);
    return lines.flatMap((l) => {
      const o = n.normalize(JSON.stringify(l));
      return o.type === 'records' ? o.records : [];
    });
  };

  it('nginx: the mcp-protocol-version request header, carried onto what is inferred', () => {
    const recs = normalize([
      {
        time_iso8601: '2026-11-09T10:00:00+00:00', msec: '1762682400.002', request_method: 'POST', request_uri: '/mcp', status: '200',
        http_mcp_protocol_version: '2025-11-25', http_accept: 'application/json, text/event-stream', sent_http_mcp_session_id: 'S1',
        sent_http_content_type: 'application/json', request_time: '0.002',
      },
    ]);
    expect(recs.map((r) => [r.kind, r.protocolVersion])).toEqual([
      ['http', '2025-11-25'],
      ['session.created', '2025-11-25'],
      ['upgrade', '2025-11-25'],
    ]);
  });

  it('envoy: a stateless POST carrying a tools/call is a call without a session', () => {
    const recs = normalize([
      {
        start_time: T, method: 'POST', path: '/mcp', response_code: 200, mcp_session_id: null, mcp_protocol_version: '2026-07-28',
        accept: 'application/json, text/event-stream', resp_content_type: 'application/json', duration: 3, rpc_kind: 'request', rpc_id: '7', rpc_method: 'tools/call',
      },
    ]);
    expect(recs.map((r) => [r.kind, r.session ?? null, r.protocolVersion])).toEqual([
      ['http', null, '2026-07-28'],
      ['call', null, '2026-07-28'],
    ]);
  });

  it('otlp: the mcp.protocol.version attribute', () => {
    const recs = normalize([
      {
        resourceLogs: [{ resource: { attributes: [] }, scopeLogs: [{ logRecords: [{
          timeUnixNano: '1762682400000000000',
          attributes: [
            { key: 'event.name', value: { stringValue: 'session.created' } },
            { key: 'mcp.session.id', value: { stringValue: 'S9' } },
            { key: 'mcp.protocol.version', value: { stringValue: '2025-06-18' } },
          ],
        }] }] }],
      },
    ]);
    expect(recs.map((r) => [r.kind, r.session, r.protocolVersion])).toEqual([['session.created', 'S9', '2025-06-18']]);
  });

  it('a mapping may fill protocol_version, retry_ms and priming', () => {
    const fmt = loadMapping({
      name: 'mylog',
      detect: { has: ['when', 'what'] },
      fields: { ts: 'when', kind: 'what', session: 'sid', stream: 'st', reason: 'why', retry_ms: 'retry', priming: 'prime', event_id: 'id', protocol_version: 'pv' },
    });
    const recs = normalize(
      [
        { when: T, what: 'event.sent', sid: 'S', st: 'p', id: 'e0', prime: 'true', pv: '2025-11-25' },
        { when: T, what: 'stream.closed', sid: 'S', st: 'p', why: 'poll', retry: '500' },
      ],
      [fmt, ...INPUT_FORMATS],
    );
    expect(recs.map((r) => [r.kind, r.priming, r.retryMs, r.protocolVersion])).toEqual([
      ['event.sent', true, undefined, '2025-11-25'],
      ['stream.closed', undefined, 500, undefined],
    ]);
  });
});

describe('summary.protocol_versions', () => {
  it('counts sessions per version, a record without one inheriting its session, and unknown for the rest', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'A', protocol_version: '2025-11-25' },
      { ts: at(1), kind: 'stream.opened', session: 'A', stream: 'g', via: 'get' },
      { ts: at(2), kind: 'session.created', session: 'B' },
      { ts: at(3), kind: 'stream.opened', session: 'B', stream: 'g', via: 'get', protocol_version: '2025-06-18' },
      { ts: at(4), kind: 'session.created', session: 'C' },
    ]);
    expect(report.summary.protocol_versions).toEqual({ '2025-06-18': 1, '2025-11-25': 1, unknown: 1 });
    expect(JSON.parse(render('json', report)).summary.protocol_versions).toEqual({ '2025-06-18': 1, '2025-11-25': 1, unknown: 1 });
    expect(render('text', report)).not.toContain('No protocol version was logged');
    expect(render('html', report)).not.toContain('No protocol version was logged');
  });

  it('says once in the text report that no version was logged', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'A' },
      { ts: at(1), kind: 'session.created', session: 'B' },
    ]);
    expect(report.summary.protocol_versions).toEqual({ unknown: 2 });
    const text = render('text', report);
    expect(text.split('No protocol version was logged').length - 1).toBe(1);
    expect(render('html', report).split('No protocol version was logged').length - 1).toBe(1);
  });

  it('records without any session and without a version: both reports say none was logged', async () => {
    const report = await analyzeLines([{ ts: at(0), kind: 'http', method: 'POST', path: '/mcp', status: 200 }]);
    expect(report.summary).toMatchObject({ records: 1, sessions: 0, protocol_versions: {} });
    expect(render('text', report)).toContain('No protocol version was logged');
    expect(render('html', report)).toContain('No protocol version was logged');
  });

  it('stateless traffic logs a version without a session: not "none logged"', async () => {
    const report = await analyzeLines([{ ts: at(0), kind: 'call', rpc_id: 1, method: 'tools/call', status: 200, protocol_version: '2026-07-28' }]);
    expect(report.summary.protocol_versions).toEqual({});
    expect(render('text', report)).not.toContain('No protocol version was logged');
    expect(render('html', report)).not.toContain('No protocol version was logged');
  });
});
