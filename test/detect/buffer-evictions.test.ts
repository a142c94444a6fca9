// A reconnect reads the trims between its Last-Event-ID and itself from the
// log's trims indexed by what they cover, and the never-placed fallback from
// running highest ids: over random trims and reconnects, each gives the trim a
// walk of every eviction in log order gives (the one the finding cites).

import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digitsKey, Evictions, logDroppedBetween, retentionLosses, trimsPast, unplacedTrim, type BufferEviction } from '../../src/detect/facts/buffer-evictions.js';
import type { Reconnect } from '../../src/detect/facts/reconnects.js';
import { compareNumeric, isDigits } from '../../src/model/event-order.js';

const before = (aMs: number, aId: number, bMs: number, bId: number) => aMs < bMs || (aMs === bMs && aId < bId);
const lanes = ['g1', 'g2', 'L'];
const ids = ['1', '2', '3', '10', '11', '007', '0', '000', '9', 'x', '1e3'];

const eviction = fc.record({
  atMs: fc.integer({ min: 0, max: 20 }),
  kind: fc.constantFrom('buffer.trimmed', 'buffer.trimmed', 'buffer.trimmed', 'session.evicted'),
  stream: fc.option(fc.constantFrom('g1', 'g2', 'p1'), { nil: null }),
  lane: fc.option(fc.constantFrom(...lanes), { nil: null }),
  oldestRetained: fc.option(fc.constantFrom(...ids), { nil: null }),
  oldest: fc.option(fc.record({ lane: fc.constantFrom(...lanes), pos: fc.integer({ min: 0, max: 30 }), tsMs: fc.integer({ min: 0, max: 20 }) }), { nil: null }),
});

const reconnect = fc.record({
  atMs: fc.integer({ min: 0, max: 20 }),
  lastTs: fc.integer({ min: 0, max: 20 }),
  lastLane: fc.constantFrom(...lanes),
  lastPos: fc.integer({ min: 0, max: 30 }),
  eventId: fc.constantFrom(...ids),
  placed: fc.boolean(),
  stream: fc.option(fc.constantFrom('g1', 'g2', 'p1'), { nil: null }),
});

describe('a session’s evictions, looked up by lane and range', () => {
  it('finds the first trim a walk of every eviction in log order finds', () => {
    fc.assert(
      fc.property(fc.array(eviction, { maxLength: 30 }), fc.array(reconnect, { maxLength: 8 }), (drawn, reconnects) => {
        // Record ids in log order; the reconnects' ids interleave with them.
        const evictions: BufferEviction[] = drawn
          .map((d, i) => ({ d, id: 2 * i + 1 }))
          .sort((a, b) => a.d.atMs - b.d.atMs || a.id - b.id)
          .map(({ d, id }) => ({
            id, kind: d.kind as BufferEviction['kind'], session: 'S', atMs: d.atMs, stream: d.kind === 'session.evicted' ? null : d.stream,
            streamLane: d.kind === 'session.evicted' || d.stream === null ? null : d.lane, oldestRetained: d.kind === 'session.evicted' ? null : d.oldestRetained,
            oldest: d.oldest === null ? null : { recordId: 99, stream: '', ...d.oldest }, reason: null,
          }));
        const db = new Database(':memory:');
        db.exec(`CREATE TABLE drawn (id, kind, session, at_ms, stream, stream_lane, oldest_retained, oldest_id, oldest_lane, oldest_pos, oldest_ts, reason)`);
        const insert = db.prepare('INSERT INTO drawn VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
        for (const e of evictions) {
          insert.run(e.id, e.kind, e.session, e.atMs, e.stream, e.streamLane, e.oldestRetained, e.oldest?.recordId ?? null, e.oldest?.lane ?? null,
            e.oldest?.pos ?? null, e.oldest?.tsMs ?? null, e.reason);
        }
        const map = new Evictions(db as never, 'SELECT * FROM drawn ORDER BY at_ms, id');
        reconnects.forEach((x, k) => {
          const last = { recordId: 4 * k, stream: 'g1', lane: x.lastLane, pos: x.lastPos, tsMs: x.lastTs };
          const r = {
            upgradeId: 4 * k + 2, session: 'S', atMs: x.atMs, stream: x.stream, window: {},
            last: { eventId: x.eventId, own: x.placed ? last : null },
          } as unknown as Reconnect;
          const trimmed = (e: BufferEviction) => e.kind === 'buffer.trimmed';
          const beforeR = (e: BufferEviction) => before(e.atMs, e.id, r.atMs, r.upgradeId);
          if (x.placed) {
            const walk = evictions.find((e) => trimmed(e) && before(last.tsMs, last.recordId, e.atMs, e.id) && beforeR(e) && trimsPast(e, last, x.eventId));
            const loss = retentionLosses(r, map, 'as-logged').find((l) => l.cause === 'trimmed');
            expect(loss?.by).toEqual(walk);
            const drop = evictions.find((e) => e.kind === 'session.evicted' && before(last.tsMs, last.recordId, e.atMs, e.id) && beforeR(e));
            expect(logDroppedBetween(r, last.tsMs, last.recordId, map)).toEqual(drop);
          } else {
            const walk = evictions.find(
              (e) => trimmed(e) && beforeR(e) && (e.stream === null || e.stream === r.stream) && e.oldestRetained !== null &&
                isDigits(e.oldestRetained) && isDigits(x.eventId) && compareNumeric(e.oldestRetained, x.eventId) > 0,
            );
            expect(unplacedTrim(r, map)).toEqual(walk);
          }
        });
        map.drop();
        db.close();
      }),
      { numRuns: 1000 },
    );
  });

  it('keys digit ids so that they order as compareNumeric orders them', () => {
    const order = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
    const digits = fc.stringMatching(/^[0-9]{1,25}$/);
    fc.assert(fc.property(digits, digits, (a, b) => order(digitsKey(a), digitsKey(b)) === compareNumeric(a, b)));
    const pairs: [string, string][] = [['007', '7'], ['10', '9'], ['0', '000'], ['123456789012345678901', '99']];
    expect(pairs.map(([a, b]) => order(digitsKey(a), digitsKey(b)))).toEqual([0, 1, 0, 1]);
  });
});
