import { statSync } from 'node:fs';
import type { LiveInputs, PathState } from '../live/inputs.js';
import type { LiveSession } from '../live/session.js';
import { printable } from '../model/printable.js';
import { STDIN_NAME } from '../read/follow.js';
import { whyUnreadable } from '../read/sources.js';
import type { SourceStats } from '../store/source-sink.js';
import type { Io } from './io.js';
import { reportSource } from './workspace.js';

// What `watch` says on stderr about its inputs: a followed file's first rejected line as it comes (a line on a
// pipe is never taken back, and a run may last hours), and at the end of the run each input as `analyze`
// reports it: the rejected lines counted, and the inputs that gave no record, named with why.

export class InputTeller {
  private readonly told = new Set<string>();

  constructor(
    private readonly live: LiveSession,
    private readonly inputs: LiveInputs,
    private readonly io: Io,
    private readonly opts: {
      dbPath?: string;
      /** A source whose file is no longer at its path (rotated, truncated): its lines cannot be listed from the path. */
      replaced: (source: string) => boolean;
    },
  ) {}

  /** After a batch of `source`'s lines: its first rejected line, once. */
  lines(source: string): void {
    if (this.told.has(source)) return;
    const s = this.live.statsOf(source);
    if (s === undefined || s.rejected === 0 || s.firstProblem === undefined) return;
    this.told.add(source);
    this.say(`${source}: line ${s.firstProblem.line} rejected (${s.firstProblem.reason}); its rejected lines are counted when the run ends`);
  }

  /** The end of the run: each input that needs a word, as analyze says it; true when one gave no record. */
  atEnd(): boolean {
    const { unusable, rejected } = this.inputs.verdicts(this.live.sourceStats(), stateOfPath);
    for (const s of rejected) {
      // The path itself, still holding that file, or stdin, or a kept database: analyze's words and hint fit.
      if (s.records > 0 && (this.opts.dbPath !== undefined || s.name === STDIN_NAME || (!this.opts.replaced(s.name) && isPath(s.name)))) reportSource(s, this.io, this.opts.dbPath);
      else this.say(rejectedNote(s, this.opts.dbPath));
    }
    for (const s of unusable) reportSource(s, this.io, this.opts.dbPath);
    return unusable.length > 0;
  }

  private say(text: string): void {
    // File names and reasons quoting a line: log text, made printable.
    this.io.err(`resumescope: ${printable(text)}\n`);
  }
}

/** A source named as its file is (the first generation), not `path (rotated 1)`. */
function isPath(name: string): boolean {
  return !/ \((?:rotated|truncated) \d+\)$/.test(name);
}

/**
 * A generation no longer at its path (a file rotated or truncated away), or one with rejected lines but no
 * record in an input whose other files gave records: its rejected lines can be listed only from a kept database.
 */
function rejectedNote(s: SourceStats, dbPath: string | undefined): string {
  const first = s.firstProblem!;
  const where = dbPath !== undefined ? `they are kept: resumescope query rejected --db ${shellWord(dbPath)}` : 'to read them, re-run with --db FILE, then: resumescope query rejected --db FILE';
  return `${s.name}: ${s.rejected} of ${s.lines} lines rejected (first: line ${first.line}: ${first.reason}); ${where}`;
}

/** A path as a shell takes it (as cli/workspace.ts quotes it). */
function shellWord(path: string): string {
  return /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}

/** What is at a path now. */
export function stateOfPath(path: string): PathState {
  try {
    const st = statSync(path);
    return st.isDirectory() ? { kind: 'folder' } : st.isFile() ? { kind: 'file' } : { kind: 'other' };
  } catch (err) {
    return { kind: 'unreadable', why: whyUnreadable(err) };
  }
}
