import { describe, expect, it } from 'vitest';
import { lineTextResolver } from '../../src/detect/evidence.js';
import { RECORD_KINDS, type RecordKind } from '../../src/model/record.js';
import { T0, ingestLines, outcomeOf, rejectionOf, rows } from './support.js';

// log-format.md "Record kinds": every kind with its fields; a field listed
// without `?` (and, for `http`, not marked optional) is required.

type Fields = Record<string, unknown>;

const KINDS: Record<RecordKind, { fields: Fields; required: string[] }> = {
  'session.created': { fields: { session: 'S1', incarnation: 'i-1', principal: 'alice' }, required: ['session'] },
  'session.state_changed': { fields: { session: 'S1', aspect: 'capabilities' }, required: ['session', 'aspect'] },
  'session.terminated': { fields: { session: 'S1', reason: 'client_delete' }, required: ['session'] },
  'session.evicted': { fields: { session: 'S1', reason: 'idle_timeout', log_evicted: false }, required: ['session'] },
  'stream.opened': { fields: { session: 'S1', stream: 'g1', via: 'get', conn: 'c1', principal: 'alice' }, required: ['session', 'stream', 'via'] },
  'stream.closed': { fields: { session: 'S1', stream: 'g1', reason: 'client' }, required: ['session', 'stream'] },
  'stream.fenced': { fields: { session: 'S1', stream: 'g1' }, required: ['session', 'stream'] },
  'event.sent': {
    fields: { session: 'S1', stream: 'g1', event_id: 5, rpc_kind: 'notification', method: 'notifications/progress', attached: false },
    required: ['session', 'stream', 'event_id'],
  },
  'event.replayed': { fields: { session: 'S1', stream: 'g2', event_id: 5, of_stream: 'g1' }, required: ['session', 'stream', 'event_id'] },
  'buffer.trimmed': { fields: { session: 'S1', stream: 'g1', oldest_retained: 3 }, required: ['session', 'oldest_retained'] },
  upgrade: {
    fields: { session: 'S1', last_event_id: 5, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 4, reemitted: 0, first_replayed: 6 },
    required: ['decision'],
  },
  'request.sent': { fields: { session: 'S1', stream: 'g1', request_id: 'r1', method: 'sampling/createMessage', event_id: 7 }, required: ['session', 'stream', 'request_id', 'method'] },
  'request.answered': { fields: { session: 'S1', request_id: 'r1', status: 202 }, required: ['session', 'request_id', 'status'] },
  'request.cancelled': { fields: { session: 'S1', request_id: 'r1', reason: 'timeout' }, required: ['session', 'request_id'] },
  'request.reissued': { fields: { session: 'S1', request_id: 'r1', new_request_id: 'r2', stream: 'g2' }, required: ['session', 'request_id', 'new_request_id', 'stream'] },
  'request.timed_out': { fields: { session: 'S1', request_id: 'r1' }, required: ['session', 'request_id'] },
  call: { fields: { session: 'S1', rpc_id: 9, method: 'tools/call', tool: 'search', args_hash: 'h1', status: 200 }, required: ['session', 'rpc_id', 'method', 'status'] },
  http: { fields: { method: 'GET', path: '/mcp', status: 200, req_headers: {}, resp_headers: {} }, required: ['method', 'status'] },
};

function without(obj: Fields, field: string): Fields {
  const copy = { ...obj };
  delete copy[field];
  return copy;
}

describe('record kinds', () => {
  it('the table covers every kind of the model', () => {
    expect(Object.keys(KINDS).sort()).toEqual([...RECORD_KINDS].sort());
  });

  describe.each(Object.entries(KINDS))('%s', (kind, { fields, required }) => {
    it('is a record with every field given', () => {
      const out = outcomeOf({ ts: T0, kind, ...fields });
      // An http record comes first, followed by what is inferred from it.
      expect(out.type === 'records' && out.records[0]!.kind).toBe(kind);
    });

    it.each(required)('without %s is rejected, naming the field', (field) => {
      const reason = rejectionOf({ ts: T0, kind, ...without(fields, field) });
      expect(reason).toContain(kind);
      expect(reason).toMatch(new RegExp(`\\b${field}\\b`));
    });

    it.each(required)('with %s null is rejected', (field) => {
      expect(rejectionOf({ ts: T0, kind, ...fields, [field]: null })).toMatch(new RegExp(`\\b${field}\\b`));
    });

    it('without ts is rejected, naming ts', () => {
      expect(rejectionOf({ kind, ...fields })).toMatch(/\bts\b/);
    });
  });

  it('an upgrade with an unknown decision is rejected', () => {
    expect(rejectionOf({ ts: T0, kind: 'upgrade', session: 'S1', decision: 'maybe', status: 200 })).toMatch(/decision "maybe"/);
  });

  it('an upgrade may say that the session and Last-Event-ID headers were absent (null)', async () => {
    const { db } = await ingestLines([{ ts: T0, kind: 'upgrade', session: null, last_event_id: null, decision: 'fresh', status: 200, new_session: 'S9' }]);
    expect(rows(db, 'SELECT session, last_event_id, new_session, decision FROM records')).toEqual([
      { session: null, last_event_id: null, new_session: 'S9', decision: 'fresh' },
    ]);
  });

  it("the spec's example lands in the contract's columns, with its raw line", async () => {
    const lines = [
      { ts: '2026-11-09T10:00:00.000Z', kind: 'session.created', session: 'S1', incarnation: 'i-1', principal: 'alice' },
      { ts: '2026-11-09T10:00:00.010Z', kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get', conn: 'c1' },
      { ts: '2026-11-09T10:00:01.000Z', kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 5, rpc_kind: 'notification', method: 'notifications/progress' },
      { ts: '2026-11-09T10:00:02.000Z', kind: 'upgrade', session: 'S1', last_event_id: 5, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 4, reemitted: 0, first_replayed: 6, conn: 'c2' },
    ];
    const { db } = await ingestLines(lines);
    const got = rows(db, 'SELECT * FROM records ORDER BY id');
    const quote = lineTextResolver(db);
    expect(got.map((r) => [r.line, r.kind, r.origin, quote({ file: 'server.ndjson', line: r.line as number })])).toEqual(
      lines.map((l, i) => [i + 1, l.kind, 'server', JSON.stringify(l)]),
    );
    expect(got[0]).toMatchObject({ ts_ms: Date.parse(lines[0]!.ts), session: 'S1', incarnation: 'i-1', principal: 'alice' });
    expect(got[1]).toMatchObject({ stream: 'g1', via: 'get', conn: 'c1' });
    expect(got[2]).toMatchObject({ event_id: '5', rpc_kind: 'notification', method: 'notifications/progress', attached: null });
    expect(got[3]).toMatchObject({
      last_event_id: '5', stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 4, reemitted: 0, first_replayed: '6', conn: 'c2',
    });
  });

  it('optional fields of the other kinds land in their columns', async () => {
    const { db } = await ingestLines([
      { ts: T0, kind: 'session.evicted', session: 'S1', reason: 'idle_timeout', log_evicted: false },
      { ts: T0, kind: 'request.reissued', session: 'S1', request_id: 'r1', new_request_id: 'r2', stream: 'g2' },
      { ts: T0, kind: 'call', session: 'S1', rpc_id: 9, method: 'tools/call', tool: 'search', args_hash: 'h1', status: 200, executed: false },
      { ts: T0, kind: 'upgrade', session: 'S1', decision: 'attach', status: 200, replayed_ids: [6, '7'], reset_signalled: true, cancelled: 2 },
    ]);
    const got = rows(db, 'SELECT * FROM records ORDER BY id');
    expect(got[0]).toMatchObject({ reason: 'idle_timeout', log_evicted: 0 });
    expect(got[1]).toMatchObject({ request_id: 'r1', new_request_id: 'r2', stream: 'g2' });
    expect(got[2]).toMatchObject({ rpc_id: '9', tool: 'search', args_hash: 'h1', status: 200, executed: 0 });
    expect(got[3]).toMatchObject({ replayed_ids: '["6","7"]', reset_signalled: 1, cancelled: 2 });
  });
});

describe('http without a path', () => {
  it('is still a record: path is informational, no rule reads it', () => {
    const out = outcomeOf({ ts: '2026-11-09T10:00:00.000Z', kind: 'http', method: 'GET', status: 404, req_headers: { 'mcp-session-id': 'S1', 'last-event-id': '5' } });
    expect(out.type).toBe('records');
  });
});
