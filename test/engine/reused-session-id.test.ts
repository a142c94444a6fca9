// One session id minted again and again (a server that hands every client the same id): each
// creation is an incarnation. The engine sets aside the ones a newer incarnation replaced
// (set-aside.ts) and, past a few, answers "did another incarnation emit this id?" from an
// index (emitters.ts). Neither may change an answer.

import { describe, expect, it } from 'vitest';
import { decide, type EngineRecord } from '../../src/engine/index.js';
import { SCAN_LIMIT } from '../../src/engine/emitters.js';
import { rec, stateOf } from './log.js';

/** `n` incarnations of S1 (nonces i-1 …), incarnation k opening stream g{k} and emitting e{k} and k on it, then ended. */
function reusedId(n: number): EngineRecord[] {
  const records: EngineRecord[] = [];
  for (let k = 1; k <= n; k++) {
    const t = k * 10;
    records.push(
      rec('session.created', t, { incarnation: `i-${k}`, principal: 'alice' }),
      rec('stream.opened', t + 1, { stream: `g${k}`, via: 'get' }),
      rec('event.sent', t + 2, { stream: `g${k}`, eventId: `e${k}` }),
      rec('event.sent', t + 3, { stream: `g${k}`, eventId: String(k) }),
      rec('stream.closed', t + 4, { stream: `g${k}` }),
    );
    if (k < n) records.push(rec('session.terminated', t + 5));
  }
  return records;
}

const resumeFrom = (lastEventId: string, seconds = 100_000) => ({ sessionId: 'S1', lastEventId, tsMs: rec('x', seconds).tsMs });

describe('a session id minted again and again', () => {
  for (const n of [SCAN_LIMIT - 1, SCAN_LIMIT + 1, 3 * SCAN_LIMIT]) {
    it(`tells a foreign id from an unknown one with ${n} incarnations`, () => {
      const state = stateOf(reusedId(n));
      // emitted by an earlier incarnation, as a string and as a counter id
      expect(decide(state, resumeFrom('e2')).checks).toEqual(['foreign_event_id']);
      expect(decide(state, resumeFrom('2')).checks).toEqual(['foreign_event_id']);
      // emitted by no incarnation
      expect(decide(state, resumeFrom('e9999')).checks).toEqual(['unknown_event_id']);
      // the serving incarnation's own id resumes
      expect(decide(state, resumeFrom(`e${n}`))).toMatchObject({ decision: 'resume', replay: [String(n)] });
    });
  }

  it('counts an id emitted by two earlier incarnations, and one emitted after the index was built, as foreign', () => {
    const n = SCAN_LIMIT + 4;
    const records = reusedId(n);
    // Two earlier incarnations emit the same id, one of them named by its nonce once the latest exists.
    records.push(rec('event.sent', n * 10 + 6, { incarnation: 'i-1', stream: 'g1', eventId: 'shared' }));
    records.push(rec('event.sent', n * 10 + 7, { incarnation: 'i-2', stream: 'g2', eventId: 'shared' }));
    records.push(rec('event.sent', n * 10 + 8, { incarnation: 'i-3', stream: 'g3', eventId: 'late' }));
    const state = stateOf(records);
    expect(decide(state, resumeFrom('shared')).checks).toEqual(['foreign_event_id']);
    expect(decide(state, resumeFrom('late')).checks).toEqual(['foreign_event_id']);
    // The latest emits one of them itself: its own event, resumed.
    records.push(rec('event.sent', n * 10 + 9, { stream: `g${n}`, eventId: 'late' }));
    expect(decide(stateOf(records), resumeFrom('late'))).toMatchObject({ decision: 'resume' });
  });

  it('still writes to an incarnation replaced by a newer one when a record names its nonce', () => {
    const records = [
      ...reusedId(3),
      rec('stream.opened', 100, { incarnation: 'i-1', stream: 'late-g', via: 'get' }),
      rec('event.sent', 101, { incarnation: 'i-1', stream: 'late-g', eventId: 'x1' }),
      rec('request.sent', 102, { incarnation: 'i-1', stream: 'late-g', requestId: 'q1', method: 'sampling/createMessage', eventId: 'x2' }),
      rec('buffer.trimmed', 103, { incarnation: 'i-1', stream: 'late-g', oldestRetained: 'x2' }),
    ];
    const state = stateOf(records);
    const first = state.incarnations[0]!;
    expect([...first.streams.keys()]).toEqual(['g1', 'late-g']);
    expect([...first.events.keys()]).toEqual(['e1', '1', 'x1', 'x2']);
    expect([...first.requests.keys()]).toEqual(['q1']);
    expect(first.trimIndex.byStream.has('late-g')).toBe(true);
    // The second, never named again, is still set aside, and its answers are unchanged.
    expect(state.incarnations[1]!.setAside).toBe(true);
    expect(decide(state, resumeFrom('x1')).checks).toEqual(['foreign_event_id']);
  });

  it('shares the empty collections of the incarnations it set aside, read-only', () => {
    const state = stateOf([rec('session.created', 0), rec('session.created', 1), rec('session.created', 2)]);
    const [a, b, latest] = state.incarnations;
    expect(a!.streams).toBe(b!.streams);
    expect(a!.events).toBe(b!.events);
    // every collection of an empty incarnation is shared, a collection field added later too
    const collections = Object.entries(a!).filter(([, v]) => v instanceof Map || v instanceof Set);
    expect(collections.length).toBeGreaterThanOrEqual(10);
    for (const [field, value] of collections) expect(value, field).toBe((b as unknown as Record<string, unknown>)[field]);
    expect(latest!.streams).not.toBe(a!.streams);
    expect(() => a!.requests.set('q', { id: 'q', sent: true, answered: false, cancelled: false, reissued: false, timedOut: false })).toThrow(/set aside/);
  });
});
