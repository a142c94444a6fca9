// A reconnect reads the trims between its Last-Event-ID and itself from the
// session's trims kept by lane, and the never-placed fallback from running
// highest ids: over random trims and reconnects, each gives the trim a walk of
// every eviction in log order gives (the one the finding cites).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retentionLosses, SessionEvictions, trimsPast, unplacedTrim, type BufferEviction } from '../../src/detect/facts/buffer-evictions.js';
import type { Reconnect } from '../../src/detect/facts/reconnects.js';
import { compareNumeric, isDigits } from '../../src/model/event-order.js';

const before = (aMs: number, aId: number, bMs: number, bId: number) => aMs < bMs || (aMs === bMs && aId < bId);
const lanes = ['g1', 'g2', 'L'];
const ids = ['1', '2', '3', '10', '11', '007', 'x'];

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
        const session = new SessionEvictions();
        for (const e of evictions) session.add(e);
        const map = new Map([['S', session]]);
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
            expect(loss?.by).toBe(walk);
          } else {
            const walk = evictions.find(
              (e) => trimmed(e) && beforeR(e) && (e.stream === null || e.stream === r.stream) && e.oldestRetained !== null &&
                isDigits(e.oldestRetained) && isDigits(x.eventId) && compareNumeric(e.oldestRetained, x.eventId) > 0,
            );
            expect(unplacedTrim(r, map)).toBe(walk);
          }
        });
      }),
      { numRuns: 2000 },
    );
  });
});
