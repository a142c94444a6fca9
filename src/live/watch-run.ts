import { failsGate, liveExitCode, worstCode, type ExitCode } from '../findings/gate.js';
import type { Finding } from '../model/finding.js';
import type { RunEnd } from '../model/run-end.js';
import type { FailOn } from '../model/severity.js';
import type { Splitting } from '../read/entries.js';
import { awayName, follow, STDIN_NAME, type FollowEvent, type FollowOptions } from '../read/follow.js';
import { readThrough } from '../read/read-through.js';
import { runLive } from './runner.js';
import type { DetectionRound, LiveSession } from './session.js';

// One `watch` run: what stops it (a bound, stdin's end, a finding at --fail-on, the caller) and the code it
// stops with, the files read through and followed, and what became of each followed path (rotated, truncated).
// What the run shows (the dashboard or NDJSON) and says (stderr) is the caller's: it is told through the hooks.

export interface WatchRunOptions {
  failOn: FailOn;
  exitAfterMs?: number;
  idleExitMs?: number;
  /** Stdin's end is the end of the log when it is the only input and nothing stays up to be looked at (the dashboard). */
  stdinEndStops: boolean;
  /** The run began to stop (the dashboard closes). */
  onStop?: () => void;
  /** A finding to print (NDJSON), in the order found. */
  print?: (f: Finding) => void;
  /** A finding at or above --fail-on: the run stops with 1 after it. */
  onViolation: (f: Finding) => void;
}

export interface WatchedFiles {
  /** Followed as they grow: files, `-`, a folder's live files. */
  targets: string[];
  /** A folder's rotated generations, oldest first: read once, before following. */
  rotated: string[];
  /** The files that appear in followed folders later (follow()'s discover options). */
  discovery: Pick<FollowOptions, 'discover' | 'discoverIn'>;
  splitting: Required<Splitting>;
  /** A rotated generation that could not be read (to its end). */
  onReadError: (file: string, why: string) => void;
}

export interface WatchHooks {
  /** Every second, lines or not. */
  onTick: () => void;
  onLines: (source: string) => void;
  onRound: (round: DetectionRound) => void;
  /** A followed path now holds a new file (`note` says why), for the dashboard's header. */
  onNewFile: (source: string, note: string) => void;
}

export class WatchRun {
  private readonly controller = new AbortController();
  private code: ExitCode = 0;
  /** How the run ended: the first reason to stop. */
  private end: RunEnd | undefined;
  // Sources whose path now holds another file: `o` must not open the new one at an old line.
  private readonly replaced = new Set<string>();
  // What they are quoted as from then on in the NDJSON: a line of theirs is no longer a line of the path's file.
  private readonly away = new Map<string, string>();
  private readonly timers: NodeJS.Timeout[] = [];
  private idle: NodeJS.Timeout | undefined;

  constructor(private readonly opts: WatchRunOptions) {}

  get ended(): RunEnd | undefined {
    return this.end;
  }

  /** Ended where the log had been read as far as it went (not cut short by a bound, a signal, a violation or the user). */
  get caughtUp(): boolean {
    return this.end === 'idle' || this.end === 'eof';
  }

  isReplaced(source: string): boolean {
    return this.replaced.has(source);
  }

  /** How the NDJSON quotes a line of `source`. */
  quotedAs(source: string): string {
    return this.away.get(source) ?? source;
  }

  stop(code: ExitCode, why: RunEnd): void {
    // The run's last round announces findings after the idle or exit-after timer began the stop: the exit
    // code is the worst of what was announced, not the code the timer asked for.
    this.code = worstCode(this.code, code);
    if (this.controller.signal.aborted) return;
    this.end = why;
    this.controller.abort();
    this.opts.onStop?.();
  }

  /** A round's fresh findings, printed until one fails the gate, which stops the run. */
  announce(fresh: Finding[]): void {
    for (const f of fresh) {
      if (this.controller.signal.aborted && this.code !== 0) return;
      this.opts.print?.(f);
      if (failsGate(f.severity, this.opts.failOn)) {
        this.opts.onViolation(f);
        return this.stop(1, 'fail-on');
      }
    }
  }

  /** Reads the rotated generations, then follows the files, until the run is stopped and the last round is judged. */
  async follow(live: LiveSession, files: WatchedFiles, hooks: WatchHooks): Promise<void> {
    const { signal } = this.controller;
    if (this.opts.exitAfterMs !== undefined) this.timers.push(setTimeout(() => this.stop(0, 'exit-after'), this.opts.exitAfterMs));
    this.resetIdle();
    this.timers.push(setInterval(hooks.onTick, 1000));
    const followed = follow(files.targets, { signal, ...files.discovery });
    const readFirst = readThrough(files.rotated, { signal, ...files.splitting, onError: files.onReadError });
    await runLive(live, concatEvents(readFirst, followed), {
      signal,
      onLines: (source) => {
        this.resetIdle();
        hooks.onLines(source);
      },
      onRound: hooks.onRound,
      // The path holds another file from the rotation on, not from the renamed file's end (its grace period after):
      // `o` must not open the new file at a line of the old one, and the header says so when it happens.
      onMoved: (source) => {
        this.replaced.add(source);
        this.away.set(source, awayName(source, 'rotated'));
        hooks.onNewFile(source, 'rotated, new file followed');
      },
      onEnd: (source, why) => {
        if (why === 'stopped') return;
        if (why !== 'eof') this.replaced.add(source);
        if ((why === 'rotated' || why === 'truncated') && !this.away.has(source)) this.away.set(source, awayName(source, why));
        if (why === 'truncated') hooks.onNewFile(source, `${why}, new file followed`);
        if (this.opts.stdinEndStops && source === STDIN_NAME && files.targets.every((t) => t === '-')) this.stop(0, 'eof');
      },
    });
  }

  /** The code the run exits with, once its inputs are judged (`unusableInput`: one gave no record). */
  exitCode(unusableInput: boolean): ExitCode {
    return liveExitCode(this.code, { ended: this.end, unusableInput, failOn: this.opts.failOn });
  }

  dispose(): void {
    for (const t of this.timers) clearTimeout(t);
    clearTimeout(this.idle);
  }

  private resetIdle(): void {
    if (this.opts.idleExitMs === undefined) return;
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.stop(0, 'idle'), this.opts.idleExitMs);
  }
}

/** The rotated generations' lines, then the followed files': one stream of events for the live run. */
async function* concatEvents(...parts: AsyncGenerator<FollowEvent>[]): AsyncGenerator<FollowEvent> {
  for (const part of parts) yield* part;
}
