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

  it('a kind alias that names no known kind leaves the line an ordinary log line', () => {
    expect(outcomeOf({ ts: T0, msg: 'listening on :8080', type: 'startup', event: 'boot' })).toEqual({ type: 'ignored' });
  });
});
