// What-if: the same logged reconnect re-decided under another retention.

import { describe, expect, it } from 'vitest';
import { decide, isRetained, resolvePolicy, type EngineRequest } from '../../src/engine/index.js';
import { at, liveSessionWithEvents, rec, stateOf } from './log.js';

// Events 1..9 at seconds 1..9 on g1; the server trimmed its buffer down to event 7.
const trimmedLog = [...liveSessionWithEvents(9), rec('buffer.trimmed', 20, { stream: 'g1', oldestRetained: '7' })];
const state = stateOf(trimmedLog);
// Event 5 was sent at second 5: this reconnect comes 60 s after it.
const reconnect: EngineRequest = { sessionId: 'S1', lastEventId: '5', tsMs: at(65) };

describe('what-if retention', () => {
  it('as logged, the trimmed position is unresumable', () => {
    expect(decide(state, reconnect, resolvePolicy({}))).toMatchObject({ decision: 'reject', checks: ['position_evicted'] });
  });

  it('resumes when events are kept 120 s and the event is 60 s old', () => {
    const decision = decide(state, reconnect, resolvePolicy({ retention: { maxAgeMs: 120_000 } }));
    expect(decision).toMatchObject({ decision: 'resume', status: 200, replay: ['6', '7', '8', '9'], checks: [] });
  });

  it('stays unresumable when events are kept only 30 s', () => {
    const decision = decide(state, reconnect, resolvePolicy({ retention: { maxAgeMs: 30_000 } }));
    expect(decision).toMatchObject({ decision: 'reject', status: 409, checks: ['position_evicted'] });
  });

  it('a reset policy turns the same reconnect into a signalled fresh session', () => {
    const decision = decide(state, reconnect, resolvePolicy({ retention: { maxAgeMs: 30_000 }, unresumable: 'reset' }));
    expect(decision).toMatchObject({ decision: 'fresh', newSession: true, resetSignalled: true });
  });
});

describe('isRetained', () => {
  const asLogged = resolvePolicy({});

  it('follows the logged trims per lane', () => {
    expect(isRetained(state, 'g1', '6', at(65), asLogged)).toBe(false);
    expect(isRetained(state, 'g1', 7, at(65), asLogged)).toBe(true);
  });

  it('is false for an id never emitted on that lane', () => {
    expect(isRetained(state, 'g1', '99', at(65), asLogged)).toBe(false);
    expect(isRetained(state, 'p1', '8', at(65), asLogged)).toBe(false);
  });

  it('counts an age of exactly maxAgeMs as retained, one ms more as evicted', () => {
    const policy = resolvePolicy({ retention: { maxAgeMs: 60_000 } });
    expect(isRetained(state, 'g1', '5', at(65), policy)).toBe(true);
    expect(isRetained(state, 'g1', '5', at(65) + 1, policy)).toBe(false);
  });

  it('evicts an event once maxEvents events came after it on its lane: a buffer of the last N no longer holds it', () => {
    // events 1-9: a buffer of 3 holds 7, 8, 9
    const policy = resolvePolicy({ retention: { maxEvents: 3 } });
    expect(isRetained(state, 'g1', '7', at(10), policy)).toBe(true);
    expect(isRetained(state, 'g1', '6', at(10), policy)).toBe(false);
  });

  it('an evicted session log counts under any retention; a kept one does not', () => {
    const evicted = stateOf([...liveSessionWithEvents(3), rec('session.evicted', 5)]);
    const kept = stateOf([...liveSessionWithEvents(3), rec('session.evicted', 5, { logEvicted: false })]);
    for (const policy of [asLogged, resolvePolicy({ retention: { maxAgeMs: 600_000 } })]) {
      expect(isRetained(evicted, 'g1', '3', at(6), policy)).toBe(false);
      expect(isRetained(kept, 'g1', '3', at(6), policy)).toBe(true);
    }
  });
});
