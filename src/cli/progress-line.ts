import type { ProgressEvent, ProgressListener, Stage } from '../model/progress.js';
import { printable } from '../model/printable.js';

// The progress line of a long run: on stderr, only when stderr is a terminal
// (whatever stdout is: a report piped to a file still shows progress), never
// with --quiet. One line redrawn in place, at most every intervalMs; at the
// end it is replaced by a one-line summary.

export interface ProgressStream {
  isTTY?: boolean;
  write(s: string): unknown;
}

export interface ProgressOptions {
  quiet?: boolean;
  intervalMs?: number;
  now?: () => number;
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
  const interval = opts.intervalMs ?? 200;
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
    const where = stage === 'read' && current ? ` ${current}` : '';
    // \r + erase-line redraws in place; the source name is the user's own, cut short to fit one line.
    // The read rate is what tells how long a read will take; after it, only the elapsed time moves.
    const detail = stage === 'read' ? `${fmt(lines)} lines (${fmt(rate)} lines/s, ${secs.toFixed(1)} s)` : `${fmt(lines)} lines read (${secs.toFixed(1)} s)`;
    stream.write(`\r\x1b[2Kresumescope: ${STAGE_WORDS[stage]}${cut(where)}: ${detail}`);
    drawn = true;
  };

  const listener = (e: ProgressEvent) => {
    if (e.type === 'lines') {
      bySource.set(e.source, e.lines);
      current = e.source;
      draw(false);
    } else {
      stage = e.stage;
      stageStart.set(e.stage, now());
      draw(true);
    }
  };

  const clear = () => {
    if (drawn) stream.write('\r\x1b[2K');
    drawn = false;
  };
  return {
    listener,
    wrap: (io) => ({ ...io, err: (s: string) => (clear(), io.err(s)) }),
    finish(extra) {
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

/** A file name is shown as given, but control characters in it could move the cursor: escaped, and long names cut. */
function cut(s: string): string {
  const safe = printable(s);
  return safe.length > 48 ? `${safe.slice(0, 20)}…${safe.slice(-27)}` : safe;
}
