import { setImmediate as nextTurn } from 'node:timers/promises';
import type { EndReason, FollowEvent } from '../read/follow.js';
import type { DetectionRound, LiveSession } from './session.js';

// Feeds followed lines into a LiveSession and runs detection rounds: at once
// when the pipeline is idle, then at most one per interval while lines keep
// coming, so a burst costs a few rounds, not one per batch, and a lone
// violating line is judged well within a second of being appended.

export interface RunLiveOptions {
  signal: AbortSignal;
  /** Least time between two detection rounds (default 250 ms). */
  detectEveryMs?: number;
  /** After every round (findings first announced in it are `round.fresh`). */
  onRound?: (round: DetectionRound) => void;
  /** After every batch of lines written. */
  onLines?: (source: string, lines: number) => void;
  /** A source will get no more lines. */
  onEnd?: (source: string, why: EndReason) => void;
  /** A source's file is no longer at its path (rotated away), though lines of it may still come. */
  onMoved?: (source: string) => void;
}

export const DEFAULT_DETECT_EVERY_MS = 250;

/**
 * A round that cost T of CPU time waits ROUND_SHARE x T after it before the next: judging takes at most a
 * quarter of the process's time however long the log grows. CPU time, not wall time: on a loaded machine
 * a round's wall time was 3-5 times its CPU time, and so was every wait after it (a soak beside other jobs:
 * findings printed 8 s after their line, half of it waiting). A catch-up over a log that was already long when `watch`
 * began re-judged its busy sessions every 250 ms, each round longer than the last: 1M production lines
 * were a tenth read after two minutes. Live, rounds take milliseconds and the interval stands.
 */
export const ROUND_SHARE = 3;

/** RESUMESCOPE_DEBUG_ROUNDS=1: one JSON line per detection round on stderr (what it judged, what it cost). */
const DEBUG_ROUNDS = process.env.RESUMESCOPE_DEBUG_ROUNDS === '1';

/**
 * Runs until the events end, which they do soon after the signal aborts (follow() then hands over each file's
 * unterminated last line: it is read before the last round); a last round judges whatever arrived.
 */
export async function runLive(live: LiveSession, events: AsyncIterable<FollowEvent>, opts: RunLiveOptions): Promise<void> {
  const every = opts.detectEveryMs ?? DEFAULT_DETECT_EVERY_MS;
  let timer: NodeJS.Timeout | undefined;
  let lastRound = Number.NEGATIVE_INFINITY;
  /** When the last round ended, and the CPU time it cost: the next one waits ROUND_SHARE times that. */
  let lastEnd = Number.NEGATIVE_INFINITY;
  let lastCost = 0;
  let failure: unknown;

  let settleTimer: NodeJS.Timeout | undefined;
  const round = () => {
    timer = undefined;
    lastRound = Date.now();
    if (!live.pending) return;
    const cpuBefore = process.cpuUsage();
    try {
      // Judged whether or not anyone listens: `a?.(b())` would skip b() without a listener.
      const judged = live.detect();
      if (DEBUG_ROUNDS) debugRound(judged, lastRound, cpuBefore);
      opts.onRound?.(judged);
    } catch (err) {
      // A round runs on a timer: keep its error for the caller rather than crash the process.
      failure ??= err;
    }
    lastEnd = Date.now();
    lastCost = cpuMs(process.cpuUsage(cpuBefore));
    scheduleSettle();
  };
  // Findings that wait to settle are announced when they have, lines or not.
  const scheduleSettle = () => {
    const at = live.nextSettle();
    clearTimeout(settleTimer);
    settleTimer = undefined;
    if (at === undefined || opts.signal.aborted) return;
    settleTimer = setTimeout(() => {
      settleTimer = undefined;
      const settled = live.settle();
      if (settled.length > 0) opts.onRound?.({ fresh: settled, sessions: [], records: 0, deriveMs: 0, detectMs: 0 });
      scheduleSettle();
    }, Math.max(0, at - Date.now()));
  };
  const schedule = () => {
    if (timer !== undefined) return;
    timer = setTimeout(round, Math.max(0, lastRound + every - Date.now(), lastEnd + ROUND_SHARE * lastCost - Date.now()));
  };

  try {
    for await (const e of events) {
      if (failure !== undefined) break;
      if (e.type === 'lines') {
        live.addLines(e.source, e.lines, e.through);
        opts.onLines?.(e.source, e.lines.length);
        schedule();
        // Let timers, keys and redraws in between batches of a long catch-up.
        await nextTurn();
      } else if (e.type === 'moved') {
        opts.onMoved?.(e.source);
      } else {
        live.endSource(e.source, e.sha256);
        opts.onEnd?.(e.source, e.why);
      }
    }
  } finally {
    clearTimeout(timer);
    clearTimeout(settleTimer);
    timer = undefined;
  }
  if (failure !== undefined) throw failure;
  // The end of the run is the end of the log: judge what arrived last, and announce what still stands.
  const last = live.finish();
  if (last !== undefined) opts.onRound?.(last);
  const settled = live.settle(true);
  if (settled.length > 0) opts.onRound?.({ fresh: settled, sessions: [], records: 0, deriveMs: 0, detectMs: 0 });
}

/** User and system time, in ms (the process's: a round's worker threads count too). */
function cpuMs(used: NodeJS.CpuUsage): number {
  return (used.user + used.system) / 1000;
}

function debugRound(r: DetectionRound, began: number, cpuBefore: NodeJS.CpuUsage): void {
  const line = {
    at: new Date(began).toISOString(),
    sessions: r.sessions.length,
    whole: r.wholeLog === true,
    records: r.records,
    cpuMs: Math.round(cpuMs(process.cpuUsage(cpuBefore))),
    wallMs: Date.now() - began,
    deriveMs: Math.round(r.deriveMs),
    detectMs: Math.round(r.detectMs),
    fresh: r.fresh.length,
    // Memory after the round, in MB: the JS heap in use (what GC keeps) beside the process's resident set.
    heapMB: Math.round(process.memoryUsage().heapUsed / 1e6),
    rssMB: Math.round(process.memoryUsage.rss() / 1e6),
  };
  process.stderr.write(`round ${JSON.stringify(line)}\n`);
}
