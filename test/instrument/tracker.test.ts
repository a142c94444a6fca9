import { describe, expect, it } from 'vitest';
import { Tracker } from '../../src/instrument/tracker.js';

// Which sessions the instrumentation knows as live decides whether a 2xx
// answer to a presented session id is a mint (a silent fork) or not.

describe('the sessions a tracker knows as live', () => {
  it('are those started and not ended; one started again after its end is live again', () => {
    const tracker = new Tracker();
    expect(tracker.knowsLive('S1')).toBe(false);
    tracker.startSession('S1');
    expect(tracker.knowsLive('S1')).toBe(true);
    expect(tracker.endSession('S1')).toBe(true);
    expect(tracker.knowsLive('S1')).toBe(false);
    tracker.startSession('S1');
    expect(tracker.knowsLive('S1')).toBe(true);
    // Its second end is logged too.
    expect(tracker.endSession('S1')).toBe(true);
  });

  it('include a session never started here where other nodes create sessions, but not one that ended here', () => {
    const tracker = new Tracker();
    expect(tracker.knowsLive('elsewhere', true)).toBe(true);
    tracker.startSession('S1');
    tracker.endSession('S1');
    expect(tracker.knowsLive('S1', true)).toBe(false);
  });

  it('once some were forgotten for the bound, include any session not known ended', () => {
    const tracker = new Tracker();
    for (let i = 0; i < 10_000; i++) tracker.startSession(`S${i}`);
    expect(tracker.knowsLive('never-started')).toBe(false);
    tracker.startSession('S10000');
    // S0 was forgotten: it may be live, and a request presenting it is no mint.
    expect(tracker.knowsLive('S0')).toBe(true);
    expect(tracker.knowsLive('never-started')).toBe(true);
    tracker.endSession('S1');
    expect(tracker.knowsLive('S1')).toBe(false);
  });
});
