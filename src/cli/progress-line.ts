import type { ProgressEvent, ProgressListener, Stage } from '../model/progress.js';
import { printable } from '../model/printable.js';

// The progress line of a long run: on stderr, only when stderr is a terminal
// (whatever stdout is: a report piped to a file still shows progress), never
// with --quiet. One line redrawn in place, at most every intervalMs; at the
// end it is replaced by a one-line summary.

export interface ProgressStream {
  isTTY?: boolean;
  /** The terminal's width, read at each draw (a tty stream keeps it current on resize). */
  columns?: number;
  write(s: string): unknown;
}

export interface ProgressOptions {
  quiet?: boolean;
  intervalMs?: number;
  now?: () => number;
  /** A terminal that knows no escape sequences (TERM=dumb): the line is redrawn with a carriage return and blanks. */
  dumb?: boolean;
  /** After the read, how often the elapsed time is redrawn while a stage works (0: never); default 1000 ms. */
  tickMs?: number;
}

export interface Progress {
  /** Undefined when nothing is to be shown: the pipeline then pays nothing. */
  listener: ProgressListener | undefined;
  /** Clears the progress line and writes the summary (nothing when silent). */
  finish(extra?: string): void;
  /** An Io whose err first clears the progress line, so that a message is not drawn over it. */
  wrap<T extends { err: (s: string) => void }>(io: T): T;
}

const STAGE_WORDS: Record<Stage, string> = { read: 'reading', derive: 'rebuilding sessions', detect: 'running rules', report: 'writing the report' };

export function progressOn(stream: ProgressStream, opts: ProgressOptions = {}): Progress {
  if (opts.quiet || stream.isTTY !== true) return { listener: undefined, finish: () => {}, wrap: (io) => io };
  const now = opts.now ?? Date.now;
  const dumb = opts.dumb ?? process.env.TERM === 'dumb';
  /** What the last draw left on the line, for a dumb terminal to blank. */
  let drawnWidth = 0;
  const interval = opts.intervalMs ?? 200;
  const tick = opts.tickMs ?? 1000;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const start = now();
  const bySource = new Map<string, number>();
  const stageStart = new Map<Stage, number>();
  let stage: Stage = 'read';
  let current = '';
  let lastDraw = -Infinity;
  let drawn = false;

  const total = () => {
    let n = 0;
    for (const v of bySource.values()) n += v;
    return n;
  };
  const draw = (force: boolean) => {
    const t = now();
    if (!force && t - lastDraw < interval) return;
    lastDraw = t;
    const lines = total();
    const secs = (t - start) / 1000;
    const rate = secs > 0 ? Math.round(lines / secs) : 0;
    // The read rate is what tells how long a read will take; after it, only the elapsed time moves.
    const detail = stage === 'read' ? `${fmt(lines)} lines (${fmt(rate)} lines/s, ${secs.toFixed(1)} s)` : `${fmt(lines)} lines read (${secs.toFixed(1)} s)`;
    const line = fitted(`resumescope: ${STAGE_WORDS[stage]}`, stage === 'read' ? current : '', `: ${detail}`, widthOf(stream));
    stream.write(`${erase()}${line}`);
    drawnWidth = line.length;
    drawn = true;
  };
  // \r + erase-line redraws in place, on one line: a line that wrapped would leave its first row behind.
  const erase = () => (dumb ? `\r${' '.repeat(drawnWidth)}\r` : '\r\x1b[2K');

  const listener = (e: ProgressEvent) => {
    if (e.type === 'lines') {
      bySource.set(e.source, e.lines);
      current = e.source;
      draw(false);
    } else {
      stage = e.stage;
      stageStart.set(e.stage, now());
      draw(true);
      // Derive and detect tell nothing until they end (23 s of a 40 s run at 400k lines): the elapsed time
      // moves on, so that a long stage does not look hung. Between turns of the event loop, and never keeps it alive.
      if (ticker === undefined && stage !== 'read' && tick > 0) ticker = setInterval(() => draw(true), tick).unref();
    }
  };

  const clear = () => {
    if (drawn) stream.write(erase());
    drawn = false;
    drawnWidth = 0;
  };
  return {
    listener,
    wrap: (io) => ({ ...io, err: (s: string) => (clear(), io.err(s)) }),
    finish(extra) {
      if (ticker !== undefined) clearInterval(ticker);
      ticker = undefined;
      const t = now();
      const lines = total();
      const secs = (t - start) / 1000;
      const rate = secs > 0 ? Math.round(lines / secs) : 0;
      const stages = (['read', 'derive', 'detect', 'report'] as const)
        .map((s, i, all) => {
          const from = s === 'read' ? start : stageStart.get(s);
          if (from === undefined) return undefined;
          const next = all.slice(i + 1).map((n) => stageStart.get(n)).find((x) => x !== undefined) ?? t;
          return `${s} ${((next - from) / 1000).toFixed(1)} s`;
        })
        .filter(Boolean)
        .join(', ');
      clear();
      stream.write(`resumescope: ${fmt(lines)} lines in ${secs.toFixed(1)} s (${fmt(rate)} lines/s; ${stages})${extra ? `; ${extra}` : ''}\n`);
    },
  };
}

const fmt = (n: number) => n.toLocaleString('en');

/** Columns the line may use: one short of the terminal's width, so that the cursor never wraps to the next row. */
function widthOf(stream: ProgressStream): number {
  return Math.max(20, (stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80) - 1);
}

/**
 * `head name tail` in at most `width` characters. A file name is shown as given, but control characters in it
 * could move the cursor: escaped; a long one is cut in its middle (its folder's start and its own name are what
 * tell it apart), down to a few characters, before the line itself is cut at its end.
 */
function fitted(head: string, name: string, tail: string, width: number): string {
  const safe = printable(name);
  const room = width - head.length - tail.length - (safe === '' ? 0 : 1);
  const shown = safe === '' ? '' : ` ${safe.length <= room ? safe : middleCut(safe, Math.max(room, 9))}`;
  const line = `${head}${shown}${tail}`;
  return line.length <= width ? line : `${line.slice(0, width - 1)}…`;
}

function middleCut(s: string, n: number): string {
  // Short of room, the end alone: the file's own name.
  const front = n >= 30 ? Math.floor((n - 1) * 0.4) : 0;
  return `${s.slice(0, front)}…${s.slice(s.length - (n - 1 - front))}`;
}
