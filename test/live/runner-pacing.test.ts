import { describe, expect, it } from 'vitest';
import { ROUND_SHARE, runLive } from '../../src/live/runner.js';
import type { DetectionRound, LiveSession } from '../../src/live/session.js';
import type { FollowEvent } from '../../src/read/follow.js';

// A catch-up over a long log makes each detection round dearer than the last: rounds must leave
// the reader most of the time, so that judging costs a share of the run, not a round per 250 ms.

/** A live session whose rounds cost `costMs` of busy time each, recording when they ran and the CPU time they took. */
function slowSession(costMs: number): { live: LiveSession; rounds: { start: number; end: number; cpuMs: number }[] } {
  const rounds: { start: number; end: number; cpuMs: number }[] = [];
  let pending = false;
  const live: Record<string, unknown> = {
    get pending() {
      return pending;
    },
    addLines: () => {
      pending = true;
      return 1;
    },
    endSource: () => undefined,
    detect: (): DetectionRound => {
      const start = Date.now();
      const cpu = process.cpuUsage();
      while (Date.now() - start < costMs) {
        // busy, as SQLite is
      }
      pending = false;
      const used = process.cpuUsage(cpu);
      rounds.push({ start, end: Date.now(), cpuMs: (used.user + used.system) / 1000 });
      return { fresh: [], sessions: [], records: 0, deriveMs: 0, detectMs: 0 };
    },
    settle: () => [],
    nextSettle: () => undefined,
    // the end of the run: the last round if lines wait, as LiveSession.finish
    finish: (): DetectionRound | undefined => (pending ? (live.detect as () => DetectionRound)() : undefined),
  };
  return { live: live as unknown as LiveSession, rounds };
}

async function* batches(count: number, everyMs: number): AsyncGenerator<FollowEvent> {
  for (let i = 0; i < count; i++) {
    await new Promise((r) => setTimeout(r, everyMs));
    yield { type: 'lines', source: 'app.ndjson', lines: [{ line: i + 1, text: '{}' }] };
  }
}

describe('runLive pacing', () => {
  it('waits ROUND_SHARE times the CPU time of a dear round before the next, while lines keep coming', async () => {
    const { live, rounds } = slowSession(60);
    await runLive(live, batches(60, 10), { signal: new AbortController().signal, detectEveryMs: 20 });
    expect(rounds.length).toBeGreaterThan(2);
    // The last round judges what came last when the lines end: it waits for nothing.
    for (let i = 1; i < rounds.length - 1; i++) {
      // CPU time, not wall time: on a loaded machine the wall time of a round is several times what it cost.
      const cost = rounds[i - 1]!.cpuMs;
      // A timer fires no sooner than asked (1 ms of rounding allowed).
      expect(rounds[i]!.start - rounds[i - 1]!.end).toBeGreaterThanOrEqual(ROUND_SHARE * cost - 1);
    }
  });

  it('keeps the interval when rounds are cheap', async () => {
    const { live, rounds } = slowSession(0);
    await runLive(live, batches(30, 10), { signal: new AbortController().signal, detectEveryMs: 50 });
    // About one round per 50 ms over some 300 ms of lines, plus the last: not one per batch.
    expect(rounds.length).toBeGreaterThanOrEqual(3);
    expect(rounds.length).toBeLessThan(15);
  });
});
