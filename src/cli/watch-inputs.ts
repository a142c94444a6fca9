import { statSync } from 'node:fs';
import type { LiveInputs, PathState } from '../live/inputs.js';
import type { LiveSession } from '../live/session.js';
import { printable } from '../model/printable.js';
import { isLaterGeneration, STDIN_NAME } from '../read/follow.js';
import { whyUnreadable } from '../read/sources.js';
import type { Io } from './io.js';
import { rejectedLinesSaid, reportSource } from './workspace.js';

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
      // Listed again from its path only where the path still holds that file (not a generation rotated or truncated
      // away), and where that file gave records (a rejecting file with none, in an input that gave some elsewhere,
      // would read as unusable on its own).
      const rereadable = s.name !== STDIN_NAME && s.records > 0 && !this.opts.replaced(s.name) && !isLaterGeneration(s.name);
      this.say(rejectedLinesSaid(s, this.opts.dbPath, rereadable));
    }
    for (const s of unusable) reportSource(s, this.io, this.opts.dbPath);
    return unusable.length > 0;
  }

  private say(text: string): void {
    // File names and reasons quoting a line: log text, made printable.
    this.io.err(`resumescope: ${printable(text)}\n`);
  }
}

/** What is at a path now. */
function stateOfPath(path: string): PathState {
  try {
    const st = statSync(path);
    return st.isDirectory() ? { kind: 'folder' } : st.isFile() ? { kind: 'file' } : { kind: 'other' };
  } catch (err) {
    return { kind: 'unreadable', why: whyUnreadable(err) };
  }
}
