import type { UnusableInput } from '../model/unusable-input.js';
import type { Db } from './db.js';

// The inputs an ingest into a --db file could not use, kept until an ingest reads them: a gate split
// into `ingest … --db FILE` and `analyze --db FILE` fails at its second step as at its first
// (log-format.md: an unusable input makes the run exit 2), and its reports say why. One key of
// `meta`, not a column: a database written before it has no such key and reads as having none,
// and an older resumescope reading a newer database passes it over.

const KEY = 'unusable_inputs';

/** An unusable input as kept; `key` tells it across runs: a file's absolute path, stdin's name. */
export interface UnusableMark extends UnusableInput {
  key: string;
}

/** What a run learnt of one input: it was unusable (`reason`), or it is in the database now (none). */
export interface InputOutcome {
  key: string;
  name: string;
  file: boolean;
  reason?: string;
}

/** The unusable inputs kept in the database, in the order first marked; none when it keeps none. */
export function unusableMarks(db: Db): UnusableMark[] {
  const value = db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(KEY) as string | undefined;
  if (value === undefined) return [];
  try {
    const kept: unknown = JSON.parse(value);
    return Array.isArray(kept) ? kept.filter(isMark) : [];
  } catch {
    // Not ours to guess at: read as no mark, as a database from before marks.
    return [];
  }
}

/**
 * Marks each input found unusable, clears each read; writes only when the marks change. The marks now kept.
 * Read and written under the write lock (BEGIN IMMEDIATE): two ingests into one database at once each
 * change their own inputs' marks, and neither writes back a list it read before the other wrote.
 */
export function noteInputOutcomes(db: Db, outcomes: readonly InputOutcome[]): UnusableMark[] {
  return db.inTransaction ? noteUnderLock(db, outcomes) : db.transaction(() => noteUnderLock(db, outcomes)).immediate();
}

function noteUnderLock(db: Db, outcomes: readonly InputOutcome[]): UnusableMark[] {
  const before = unusableMarks(db);
  const marks = new Map(before.map((m) => [m.key, m]));
  for (const o of outcomes) {
    if (o.reason === undefined) marks.delete(o.key);
    else marks.set(o.key, { key: o.key, name: o.name, reason: o.reason, file: o.file });
  }
  const after = [...marks.values()];
  if (JSON.stringify(after) === JSON.stringify(before)) return after;
  if (after.length === 0) db.prepare('DELETE FROM meta WHERE key = ?').run(KEY);
  else db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(KEY, JSON.stringify(after));
  return after;
}

/**
 * Before an ingest into a --db file reads its inputs, each is marked as not finished, in a write of its own:
 * a run killed on the way leaves the marks, and a gate's `analyze --db` then fails as for an unusable input
 * instead of judging what the database happens to hold. The run's outcomes replace the marks when it ends.
 * Returns the marks kept before, for inputs the run finds nothing new in (restoredMark).
 */
export function markUnfinished(db: Db, inputs: readonly Omit<InputOutcome, 'reason'>[]): Map<string, UnusableMark> {
  return db.transaction(() => {
    const before = new Map(unusableMarks(db).map((m) => [m.key, m]));
    noteInputOutcomes(db, inputs.map((i) => ({ ...i, reason: `${UNFINISHED} (stopped, or still running)` })));
    return before;
  }).immediate();
}

/** What an input read again as bytes the database holds keeps: its mark from before, but not an unfinished one (the bytes are all in). */
export function restoredMark(before: ReadonlyMap<string, UnusableMark>, input: Omit<InputOutcome, 'reason'>): InputOutcome {
  const prev = before.get(input.key);
  return prev === undefined || prev.reason.startsWith(UNFINISHED) ? input : { ...input, reason: prev.reason };
}

const UNFINISHED = 'the ingest reading it did not finish';

function isMark(m: unknown): m is UnusableMark {
  const o = m as Partial<UnusableMark> | null;
  return typeof o === 'object' && o !== null && typeof o.key === 'string' && typeof o.name === 'string' && typeof o.reason === 'string' && typeof o.file === 'boolean';
}
