import { resolve } from 'node:path';
import { followedPath, STDIN_NAME } from '../read/follow.js';
import type { Db } from '../store/db.js';
import type { SourceStats } from '../store/source-sink.js';
import { noteInputOutcomes, type InputOutcome } from '../store/unusable-inputs.js';

// `watch --db` keeps each batch of lines as it comes, so a run stopped before a file was read to its end (a
// signal during the catch-up over a long log, a kill) leaves that file's first lines in the database. As an
// ingest does, each followed file is marked "did not finish" before the run reads it, in a write of its own,
// and the end of the run replaces the marks: cleared for a file read to its end, kept (saying how far it went)
// for one that was not. A later command on the database then names the file and exits 2, rather than judging
// the part it holds as the whole. Stdin has no end to read to: what came before the stop is what there was.

const WATCH_MARK = 'the watch following it';
const UNFINISHED = `${WATCH_MARK} did not finish (stopped, or still running)`;

/** A mark a watch left (not an ingest): an ingest of its file into the same database is refused (store/followed-prefix.ts). */
export function isWatchMark(reason: string): boolean {
  return reason.startsWith(WATCH_MARK);
}

/** The input a followed file is in the database's marks: its absolute path, as an ingest keys it. */
function inputOf(path: string): Omit<InputOutcome, 'reason'> {
  return { key: resolve(path), name: path, file: true };
}

/** Before the run reads them: the files to follow (stdin aside) marked as not finished. */
export function markFollowedUnfinished(db: Db, paths: readonly string[]): void {
  const files = paths.filter((p) => p !== '-');
  if (files.length > 0) noteInputOutcomes(db, files.map((p) => ({ ...inputOf(p), reason: UNFINISHED })));
}

/** A followed file left unread past its first lines: what the mark and the end of the run say of it. */
export interface CutShort {
  name: string;
  reason: string;
}

/**
 * The end of the run: each file marked at the start, or met since, is cleared when every source of it ended
 * (read to its end), and marked with how far it went when one did not (`notEnded`). Returns those marked so.
 */
export function noteFollowedAtEnd(db: Db, marked: readonly string[], notEnded: readonly SourceStats[]): CutShort[] {
  const cut = new Map<string, CutShort>();
  for (const s of notEnded) {
    if (s.name === STDIN_NAME) continue;
    const path = followedPath(s.name);
    const of = s.name === path ? '' : ` (as ${s.name})`;
    cut.set(path, { name: path, reason: `${WATCH_MARK} stopped before reading it to its end: its first ${s.lines} lines${of} are in the database` });
  }
  const outcomes: InputOutcome[] = marked.filter((p) => p !== '-' && !cut.has(p)).map(inputOf);
  for (const c of cut.values()) outcomes.push({ ...inputOf(c.name), reason: c.reason });
  noteInputOutcomes(db, outcomes);
  return [...cut.values()];
}
