import { describe, expect, it } from 'vitest';
import { analyzeLines, findingsOf, type LogLine } from '../helpers/logs.js';
import type { NormalizedRecord } from '../../src/model/record.js';
import { T0, outcomeOf, recordOf, rejectionOf } from './support.js';

// log-format.md: "A line that is not a valid record is never dropped silently". A field the kind reads,
// written with another type than the spec's, is read as the spec means it where the form is unambiguous
// (a digit string for a number, "true"/"false" for a boolean, a closed set's word in another case), and
// otherwise rejects the line, naming the field, the type and what was written (README, "Values").

const UPGRADE = { ts: T0, kind: 'upgrade', session: 'S1', last_event_id: 1, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0, reemitted: 0, cancelled: 0 };
/** An http line's own record (the records inferred from it follow it). */
function httpRecordOf(line: LogLine): NormalizedRecord {
  const out = outcomeOf(line);
  if (out.type !== 'records') throw new Error(`expected records, got ${JSON.stringify(out)}`);
  return out.records[0]!;
}

const SENT = { ts: T0, kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 5 };

describe('numbers written as strings of digits', () => {
  it('an upgrade\'s status and counters are read as the numbers', () => {
    const rec = recordOf({ ...UPGRADE, status: '200', replayed: '3', reemitted: '0', cancelled: '1' });
    expect([rec.status, rec.replayed, rec.reemitted, rec.cancelled]).toEqual([200, 3, 0, 1]);
  });

  it('a call\'s status written as String(res.statusCode) is read, not "missing"', () => {
    expect(recordOf({ ts: T0, kind: 'call', session: 'S1', rpc_id: 1, method: 'tools/call', status: '200' }).status).toBe(200);
  });

  it('seq, retry_ms and an http record\'s duration_ms and bytes', () => {
    expect(recordOf({ ...SENT, seq: '42' }).seq).toBe(42);
    expect(recordOf({ ts: T0, kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'poll', retry_ms: '1500' }).retryMs).toBe(1500);
    const http = httpRecordOf({ ts: T0, kind: 'http', method: 'GET', path: '/mcp', status: '200', duration_ms: '12.5', bytes: '300' });
    expect([http.status, http.durationMs, http.bytes]).toEqual([200, 12.5, 300]);
  });

  it('a value that is no number rejects the line, naming the field, the type and the value', () => {
    expect(rejectionOf({ ...UPGRADE, status: 'OK' })).toBe('upgrade: status must be a number (an HTTP status), got "OK"');
    expect(rejectionOf({ ...UPGRADE, replayed: 'many' })).toBe('upgrade: replayed must be a count (an integer, 0 or more), got "many"');
    expect(rejectionOf({ ...UPGRADE, cancelled: { n: 1 } })).toBe('upgrade: cancelled must be a count (an integer, 0 or more), got an object');
    expect(rejectionOf({ ...UPGRADE, reemitted: [0] })).toBe('upgrade: reemitted must be a count (an integer, 0 or more), got an array');
    expect(rejectionOf({ ...UPGRADE, status: ' 200' })).toMatch(/status must be a number/);
    expect(rejectionOf({ ts: T0, kind: 'call', session: 'S1', rpc_id: 1, method: 'tools/call', status: '200 OK' })).toBe('call: status must be a number (an HTTP status), got "200 OK"');
  });

  it('the camelCase spelling of a field is the field\'s own name: its wrong type rejects too', () => {
    expect(rejectionOf({ ts: T0, kind: 'stream.closed', session: 'S1', stream: 'g1', retryMs: 'soon' })).toMatch(/^stream\.closed: retry_ms must be a number/);
  });

  it('null is absent, as before: the counter is unknown, not a rejection', () => {
    expect(recordOf({ ...UPGRADE, replayed: null }).replayed).toBeUndefined();
  });

  it('a field the kind does not read is not judged (an unknown field is kept, not used)', () => {
    expect(recordOf({ ...SENT, status: 'OK', replayed: 'many' }).kind).toBe('event.sent');
  });
});

describe('ts of another type', () => {
  it('is named with what was written, not called missing', () => {
    expect(rejectionOf({ ...SENT, ts: true })).toBe('event.sent: ts must be an RFC 3339 string or epoch milliseconds, got true');
    expect(rejectionOf({ ...SENT, ts: undefined })).toBe('event.sent: missing ts');
  });
});

describe('booleans written as strings', () => {
  it('"true" and "false", in any case, are the booleans', () => {
    expect(recordOf({ ...SENT, attached: 'false' }).attached).toBe(false);
    expect(recordOf({ ...SENT, priming: 'True' }).priming).toBe(true);
    expect(recordOf({ ts: T0, kind: 'session.evicted', session: 'S1', log_evicted: 'false' }).logEvicted).toBe(false);
  });

  it('any other value rejects the line', () => {
    expect(rejectionOf({ ...SENT, attached: 'yes' })).toBe('event.sent: attached must be a boolean (true or false), got "yes"');
    expect(rejectionOf({ ...SENT, attached: 0 })).toBe('event.sent: attached must be a boolean (true or false), got 0');
    expect(rejectionOf({ ...UPGRADE, reset_signalled: 'no' })).toMatch(/^upgrade: reset_signalled must be a boolean/);
  });

  it('a credential written into a typed field is not quoted in the reason; a long value is cut', () => {
    const token = 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';
    expect(rejectionOf({ ...SENT, attached: token })).toBe('event.sent: attached must be a boolean (true or false), got "[redacted]"');
    expect(rejectionOf({ ...SENT, attached: 'x'.repeat(100) })).toBe(`event.sent: attached must be a boolean (true or false), got "${'x'.repeat(40)}…"`);
  });
});

describe('values out of the spec\'s range', () => {
  it('a counter below 0 or with a fraction is rejected; 0 is a count', () => {
    expect(rejectionOf({ ...UPGRADE, replayed: -1 })).toBe('upgrade: replayed must be a count (an integer, 0 or more), got -1');
    expect(rejectionOf({ ...UPGRADE, replayed: 2.5 })).toBe('upgrade: replayed must be a count (an integer, 0 or more), got 2.5');
    expect(rejectionOf({ ...UPGRADE, replayed: '-1' })).toMatch(/replayed must be a count/);
    expect(recordOf({ ...UPGRADE, replayed: 0 }).replayed).toBe(0);
  });

  it('an HTTP status outside 100..599 is rejected; 100 and 599 are statuses', () => {
    expect(rejectionOf({ ...UPGRADE, status: 0 })).toBe('upgrade: status must be an HTTP status (an integer from 100 to 599), got 0');
    expect(rejectionOf({ ...UPGRADE, status: 600 })).toMatch(/status must be an HTTP status/);
    expect(rejectionOf({ ...UPGRADE, status: 200.5 })).toMatch(/status must be an HTTP status/);
    expect(recordOf({ ...UPGRADE, status: 100 }).status).toBe(100);
    expect(recordOf({ ...UPGRADE, decision: 'reject', status: 599 }).status).toBe(599);
  });

  it('an event id is a string or an integer: a fraction is rejected, a negative integer is an id', () => {
    expect(rejectionOf({ ...SENT, event_id: 1.5 })).toBe('event.sent: event_id must be a string or an integer (an event id), got 1.5');
    expect(rejectionOf({ ...UPGRADE, last_event_id: 0.5 })).toMatch(/^upgrade: last_event_id must be a string or an integer/);
    expect(rejectionOf({ ...SENT, event_id: true })).toMatch(/event_id must be a string or an integer \(an event id\), got true/);
    expect(recordOf({ ...SENT, event_id: -3 }).eventId).toBe('-3');
  });

  it('an empty required field is rejected; an empty optional one is kept as written', () => {
    expect(rejectionOf({ ...SENT, event_id: '' })).toBe('event.sent: required field event_id is empty');
    expect(rejectionOf({ ...SENT, stream: '' })).toBe('event.sent: required field stream is empty');
    expect(recordOf({ ...UPGRADE, last_event_id: '' }).lastEventId).toBe('');
  });

  it('a required id of another type is named, not called missing', () => {
    expect(rejectionOf({ ...SENT, session: ['S1'] })).toBe('event.sent: session must be a string or a number (an id), got an array');
  });

  it('an optional id of another type is read as absent: pino-http binds its request object as req', () => {
    expect(recordOf({ ...SENT, req: { id: 1, method: 'GET' } }).req).toBeUndefined();
  });
});

describe('closed sets: via, rpc_kind, decision', () => {
  it('are read in any case', () => {
    expect(recordOf({ ts: T0, kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'GET' }).via).toBe('get');
    expect(recordOf({ ...SENT, rpc_kind: 'Response' }).rpcKind).toBe('response');
    expect(recordOf({ ...UPGRADE, decision: 'Resume' }).decision).toBe('resume');
    expect(httpRecordOf({ ts: T0, kind: 'http', method: 'POST', status: 200, rpc_kind: 'RESPONSE' }).rpcKind).toBe('response');
  });

  it('a word outside the set rejects the line, naming the set', () => {
    expect(rejectionOf({ ts: T0, kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'put' })).toBe('stream.opened: unknown via "put" (get or post)');
    expect(rejectionOf({ ...SENT, rpc_kind: 'reply' })).toBe('event.sent: unknown rpc_kind "reply" (request, response or notification)');
    expect(rejectionOf({ ...UPGRADE, decision: 'resumed' })).toBe('upgrade: unknown decision "resumed" (resume, attach, fresh or reject)');
    expect(rejectionOf({ ts: T0, kind: 'stream.opened', session: 'S1', stream: 'g1', via: 1 })).toBe('stream.opened: via must be a string (get or post), got 1');
  });
});

describe('lists of event ids: replayed_ids, sse_event_ids', () => {
  const PROXY_GET = { ts: T0, kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'S1' } };

  it('strings and integers are event ids, kept in order as strings', () => {
    expect(recordOf({ ...UPGRADE, replayed: 3, replayed_ids: [2, '3', -4] }).replayedIds).toEqual(['2', '3', '-4']);
    expect(httpRecordOf({ ...PROXY_GET, sse_event_ids: ['a', 7] }).sseEventIds).toEqual(['a', '7']);
    expect(recordOf({ ...UPGRADE, replayed_ids: [] }).replayedIds).toEqual([]);
  });

  it('an element of another type rejects the line, naming its place: it was once left out, and the list said fewer were replayed', () => {
    expect(rejectionOf({ ...UPGRADE, replayed: 3, replayed_ids: [2, null, 4] })).toBe('upgrade: replayed_ids[1] must be a string or an integer (an event id), got null');
    expect(rejectionOf({ ...UPGRADE, replayed_ids: [2, 3.5] })).toBe('upgrade: replayed_ids[1] must be a string or an integer (an event id), got 3.5');
    expect(rejectionOf({ ...PROXY_GET, sse_event_ids: [{ id: 1 }] })).toBe('http: sse_event_ids[0] must be a string or an integer (an event id), got an object');
  });

  it('a list written as one string is named, not read as no list', () => {
    expect(rejectionOf({ ...UPGRADE, replayed_ids: '2,3,4' })).toBe('upgrade: replayed_ids must be an array of event ids, got "2,3,4"');
    expect(rejectionOf({ ...UPGRADE, replayedIds: 2 })).toBe('upgrade: replayed_ids must be an array of event ids, got 2');
  });

  it('null is absent, as for any field: no list', () => {
    expect(recordOf({ ...UPGRADE, replayed_ids: null }).replayedIds).toBeUndefined();
  });
});

describe('seq beyond 2^53', () => {
  it('is rejected, saying why: JSON.parse has rounded it, and records would be misordered', () => {
    expect(rejectionOf('{"ts":"2026-11-09T10:00:00.000Z","kind":"session.created","session":"S1","seq":9007199254740993}')).toMatch(
      /^session\.created: seq is beyond 2\^53 - 1 \(9007199254740991\)/,
    );
    expect(rejectionOf({ ts: T0, kind: 'session.created', session: 'S1', seq: '9007199254740993' })).toMatch(/seq is beyond 2\^53/);
  });

  it('2^53 - 1 itself is read exactly', () => {
    expect(recordOf('{"ts":"2026-11-09T10:00:00.000Z","kind":"session.created","session":"S1","seq":9007199254740991}').seq).toBe(9007199254740991);
  });
});

describe('what the findings see (the audit\'s cases)', () => {
  const truncation = (upgrade: Record<string, unknown>): LogLine[] => [
    { ts: '2026-11-09T10:00:00.000Z', kind: 'session.created', session: 'S1' },
    { ts: '2026-11-09T10:00:00.010Z', kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' },
    { ts: '2026-11-09T10:00:01.000Z', kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1 },
    { ts: '2026-11-09T10:00:01.100Z', kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 2 },
    { ts: '2026-11-09T10:00:01.200Z', kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 3 },
    { ts: '2026-11-09T10:00:01.900Z', kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'client' },
    { ...upgrade, ts: '2026-11-09T10:00:02.000Z' },
  ];

  it('a resume whose counters are strings of digits is judged as with numbers: silent-truncation', async () => {
    const report = await analyzeLines(truncation({ ...UPGRADE, status: '200', replayed: '0', reemitted: '0', cancelled: '0' }));
    expect(findingsOf(report, 'silent-truncation')).toHaveLength(1);
  });

  it('a resume whose status is "OK" is a rejected line, counted, not a silent pass', async () => {
    const report = await analyzeLines(truncation({ ...UPGRADE, status: 'OK' }));
    expect(findingsOf(report, 'silent-truncation')).toHaveLength(0);
    expect(report.summary.rejected_lines).toBe(1);
  });

  it('"via":"GET" is a GET stream: the second writer to a superseded stream is found', async () => {
    const report = await analyzeLines([
      { ts: '2026-11-09T10:00:00.000Z', kind: 'session.created', session: 'S1' },
      { ts: '2026-11-09T10:00:00.010Z', kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'GET' },
      { ts: '2026-11-09T10:00:01.000Z', kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1 },
      { ts: '2026-11-09T10:00:02.000Z', kind: 'upgrade', session: 'S1', last_event_id: null, new_stream: 'g2', decision: 'attach', status: 200, replayed: 0, reemitted: 0, cancelled: 0 },
      { ts: '2026-11-09T10:00:02.010Z', kind: 'stream.opened', session: 'S1', stream: 'g2', via: 'GET' },
      { ts: '2026-11-09T10:00:03.000Z', kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 2 },
    ]);
    expect(findingsOf(report, 'write-to-superseded-stream')).toHaveLength(1);
  });

  it('seq written as strings orders a node\'s tied records: no false event-id-regression', async () => {
    const report = await analyzeLines([
      { ts: '2026-11-09T10:00:00.000Z', kind: 'session.created', session: 'S1', node: 'n1', seq: '1' },
      { ts: '2026-11-09T10:00:00.010Z', kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get', node: 'n1', seq: '2' },
      { ts: '2026-11-09T10:00:01.000Z', kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 'b', node: 'n1', seq: '4' },
      { ts: '2026-11-09T10:00:01.000Z', kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 'a', node: 'n1', seq: '3' },
      { ts: '2026-11-09T10:00:01.500Z', kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'client', node: 'n1', seq: '5' },
      { ts: '2026-11-09T10:00:02.000Z', kind: 'upgrade', session: 'S1', last_event_id: 'a', stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 1, reemitted: 0, cancelled: 0, first_replayed: 'b', node: 'n1', seq: '6' },
    ]);
    expect(findingsOf(report, 'event-id-regression')).toHaveLength(0);
    expect(report.summary.rejected_lines).toBe(0);
  });
});
