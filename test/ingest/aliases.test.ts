import { describe, expect, it } from 'vitest';
import type { NormalizedRecord } from '../../src/model/record.js';
import { T0, T0_MS, ingestLines, outcomeOf, recordOf, rows } from './support.js';

// log-format.md "Common fields": every name in the "also accepted as" column
// stands for its canonical field.

const BASE = { ts: T0, kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' };

type Case = { canonical: string; alias: string; value: unknown; field: keyof NormalizedRecord; expected: unknown };

const CASES: Case[] = [
  ...['time', 'timestamp', '@timestamp'].map((alias) => ({ canonical: 'ts', alias, value: T0, field: 'tsMs' as const, expected: T0_MS })),
  ...['session_id', 'sessionId', 'mcp_session_id', 'mcp.session.id'].map((alias) => ({ canonical: 'session', alias, value: 'S7', field: 'session' as const, expected: 'S7' })),
  { canonical: 'incarnation', alias: 'session_incarnation', value: 'i-2', field: 'incarnation', expected: 'i-2' },
  ...['stream_id', 'streamId'].map((alias) => ({ canonical: 'stream', alias, value: 'g7', field: 'stream' as const, expected: 'g7' })),
  { canonical: 'conn', alias: 'connection_id', value: 'c9', field: 'conn', expected: 'c9' },
  ...['client_id', 'subject'].map((alias) => ({ canonical: 'principal', alias, value: 'bob', field: 'principal' as const, expected: 'bob' })),
  ...['host', 'instance', 'hostname'].map((alias) => ({ canonical: 'node', alias, value: 'n2', field: 'node' as const, expected: 'n2' })),
];

function withAlias({ canonical, alias, value }: Case): Record<string, unknown> {
  const line: Record<string, unknown> = { ...BASE, [alias]: value };
  delete line[canonical];
  return line;
}

describe('aliases of the common fields', () => {
  it.each(CASES)('$alias stands for $canonical', (c) => {
    expect(recordOf(withAlias(c))[c.field]).toBe(c.expected);
  });

  it.each(['event', 'type', 'msg'])('%s stands for kind', (alias) => {
    const { kind: _kind, ...rest } = BASE;
    expect(recordOf({ ...rest, [alias]: 'stream.opened' }).kind).toBe('stream.opened');
  });

  it.each(CASES)('the canonical $canonical wins over $alias', (c) => {
    const canonicalValue = c.canonical === 'ts' ? '2026-11-09T11:00:00.000Z' : 'canonical';
    const got = recordOf({ ...BASE, [c.alias]: c.value, [c.canonical]: canonicalValue })[c.field];
    expect(got).toBe(c.canonical === 'ts' ? Date.parse(canonicalValue) : canonicalValue);
  });

  it('sequence and seq have no aliases, and land as given', () => {
    const r = recordOf({ ...BASE, sequence: 'lane-1', seq: 17 });
    expect([r.sequence, r.seq]).toEqual(['lane-1', 17]);
  });

  it('aliased values are stored in the canonical columns', async () => {
    const { db } = await ingestLines([
      { '@timestamp': T0, type: 'stream.opened', sessionId: 'S1', streamId: 'g1', via: 'get', connection_id: 'c1', subject: 'alice', hostname: 'n1', session_incarnation: 'i-1' },
    ]);
    expect(rows(db, 'SELECT ts_ms, kind, session, stream, conn, principal, node, incarnation FROM records')).toEqual([
      { ts_ms: T0_MS, kind: 'stream.opened', session: 'S1', stream: 'g1', conn: 'c1', principal: 'alice', node: 'n1', incarnation: 'i-1' },
    ]);
  });

  // An ECS logger's host is an object (`host: {hostname}`), as Filebeat's `host.name` is: its name is the node.
  it('an ECS host object names the node by host.name or host.hostname, nested or flat, the record\'s node first', () => {
    expect(recordOf({ ...BASE, host: { hostname: 'n3' } }).node).toBe('n3');
    expect(recordOf({ ...BASE, host: { name: 'n4', hostname: 'n3' } }).node).toBe('n4');
    expect(recordOf({ ...BASE, 'host.hostname': 'n5' }).node).toBe('n5');
    expect(recordOf({ ...BASE, node: 'n1', host: { hostname: 'n3' } }).node).toBe('n1');
  });

  it('near miss: an ECS host object with neither name names no node', () => {
    expect(recordOf({ ...BASE, host: { ip: ['10.0.0.1'], architecture: 'x86_64' } }).node).toBeUndefined();
  });

  it('a kind alias that names no known kind leaves the line an ordinary log line', () => {
    expect(outcomeOf({ ts: T0, msg: 'listening on :8080', type: 'startup', event: 'boot' })).toEqual({ type: 'ignored' });
  });
});

// A JavaScript logger writes the spec's snake_case fields in camelCase, as the spec's own `sessionId` and
// `streamId`: each is read as its field. Read without them, an upgrade was a resume without Last-Event-ID.
describe('camelCase spellings of the spec fields', () => {
  const UPGRADE = { ts: T0, kind: 'upgrade', session: 'S1', decision: 'resume', status: 200 };

  it('lastEventId, newStream, firstReplayed, replayedIds, newSession, resetSignalled are read on an upgrade', () => {
    const r = recordOf({ ...UPGRADE, lastEventId: 5, newStream: 'g2', firstReplayed: 6, replayedIds: [6, 7], newSession: 'S2', resetSignalled: true });
    expect(r).toMatchObject({ lastEventId: '5', newStream: 'g2', firstReplayed: '6', replayedIds: ['6', '7'], newSession: 'S2', resetSignalled: true });
  });

  it('eventId, rpcKind, rpcId, requestId, newRequestId, oldestRetained, logEvicted, retryMs, argsHash are read', () => {
    expect(recordOf({ ts: T0, kind: 'event.sent', session: 'S1', stream: 'g1', eventId: 3, rpcKind: 'request', rpcId: 9 })).toMatchObject({ eventId: '3', rpcKind: 'request', rpcId: '9' });
    expect(recordOf({ ts: T0, kind: 'request.reissued', session: 'S1', stream: 'g2', requestId: 'r1', newRequestId: 'r2' })).toMatchObject({ requestId: 'r1', newRequestId: 'r2' });
    expect(recordOf({ ts: T0, kind: 'buffer.trimmed', session: 'S1', oldestRetained: 40 }).oldestRetained).toBe('40');
    expect(recordOf({ ts: T0, kind: 'session.evicted', session: 'S1', logEvicted: false }).logEvicted).toBe(false);
    expect(recordOf({ ts: T0, kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'poll', retryMs: 500 }).retryMs).toBe(500);
    expect(recordOf({ ts: T0, kind: 'call', session: 'S1', rpcId: 1, method: 'tools/call', status: 200, argsHash: 'h' }).argsHash).toBe('h');
  });

  it('the snake_case name wins over the camelCase one, and a call takes no requestId (a web framework\'s own)', () => {
    expect(recordOf({ ...UPGRADE, last_event_id: 5, lastEventId: 9 }).lastEventId).toBe('5');
    expect(recordOf({ ts: T0, kind: 'call', session: 'S1', rpc_id: 1, method: 'tools/call', status: 200, requestId: 'http-7' }).requestId).toBeUndefined();
  });
});

// A key that differs from a field's name only in case or separators is the writer's slip, not another field:
// read without it, an upgrade's `Session` made a session-less resume (a false event-id-without-session). The line
// is rejected, naming the field meant, as a missing required field already rejects it on a stream.opened.
describe('a key that differs from a field the record reads only in case or separators', () => {
  it.each([
    [{ ts: T0, kind: 'upgrade', Session: 'S1', stream: 'g1', last_event_id: 5, decision: 'resume', status: 200 }, 'upgrade: unknown field "Session": did you mean "session"? (field names are case-sensitive)'],
    [{ ts: T0, kind: 'upgrade', session: 'S1', LAST_EVENT_ID: 5, decision: 'resume', status: 200 }, 'upgrade: unknown field "LAST_EVENT_ID": did you mean "last_event_id"? (field names are case-sensitive)'],
    [{ ts: T0, kind: 'stream.opened', SessionId: 'S1', stream: 'g1', via: 'get' }, 'stream.opened: unknown field "SessionId": did you mean "sessionId"? (field names are case-sensitive)'],
    [{ ts: T0, kind: 'event.sent', session: 'S1', stream: 'g1', 'event-id': 4 }, 'event.sent: unknown field "event-id": did you mean "event_id"? (field names are case-sensitive)'],
    [{ Time: T0, kind: 'session.created', session: 'S1' }, 'session.created: unknown field "Time": did you mean "time"? (field names are case-sensitive)'],
  ])('%j is rejected, naming the field meant', (line, reason) => {
    expect(outcomeOf(line)).toEqual({ type: 'rejected', reason });
  });

  it('is no slip where the record has the field, where its kind reads no such field, or where the word is generic', () => {
    expect(recordOf({ ts: T0, kind: 'upgrade', session: 'S1', Session: 'x', decision: 'attach', status: 200 }).session).toBe('S1');
    expect(recordOf({ ts: T0, kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 4, Status: 'ok', Decision: 'x' }).eventId).toBe('4');
    expect(recordOf({ ts: T0, kind: 'upgrade', session: 'S1', decision: 'attach', status: 200, Host: 'api.example.com', Subject: 'hi' }).node).toBeUndefined();
    expect(outcomeOf({ ts: T0, msg: 'listening', Session: 'S1' })).toEqual({ type: 'ignored' });
  });
});
