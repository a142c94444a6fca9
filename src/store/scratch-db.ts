import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markQuotesFromFiles, openDb, StoreError, type Db } from './db.js';

/**
 * A throw-away timeline database in a named temporary file, for work another
 * connection must read: `query` runs its statement in a child process it can
 * kill (store/bounded-query.ts), and a large one-off run derives and judges on
 * two threads (store/derive-threads.ts, detect/parallel.ts). EMBEDDED_DB,
 * SQLite's anonymous temporary file, cannot be opened by a second connection.
 * The private directory (mode 0700) is removed when the database is closed,
 * or at exit if it never is.
 */
export function openScratchDb(opts: { quotesFromFiles?: boolean; folder?: ScratchFolder } = {}): Db {
  const folder = opts.folder ?? scratchFolder();
  let db: Db;
  try {
    db = openDb(join(folder.path, TIMELINE_FILE));
  } catch (err) {
    folder.remove();
    throw err;
  }
  // Nothing to keep across a crash, as with EMBEDDED_DB.
  db.pragma('synchronous = OFF');
  removedOnClose(db, folder);
  return opts.quotesFromFiles ? markQuotesFromFiles(db) : db;
}

/** Removes the folder when the database is closed: what it holds (the database, spools) lives as long. */
export function removedOnClose(db: Db, folder: ScratchFolder): Db {
  const close = db.close.bind(db);
  db.close = () => {
    close();
    folder.remove();
    return db;
  };
  return db;
}

/** A private folder (mode 0700) for a run's throw-away files, removed by `remove()` or at exit. */
export interface ScratchFolder {
  path: string;
  remove(): void;
}

export function scratchFolder(): ScratchFolder {
  removeOrphans();
  const path = madeIn(tmpdir());
  const rm = () => rmSync(path, { recursive: true, force: true });
  process.once('exit', rm);
  const beat = setInterval(() => touch(path), HEARTBEAT_MS);
  beat.unref();
  return {
    path,
    remove() {
      clearInterval(beat);
      rm();
      process.off('exit', rm);
    },
  };
}

/** A new private folder in `dir` (TMPDIR), or a StoreError naming TMPDIR and the fix. */
function madeIn(dir: string): string {
  try {
    return mkdtempSync(join(dir, `${PREFIX}${process.pid}-`));
  } catch (err) {
    throw new StoreError(
      `cannot make the scratch database's folder in TMPDIR (${dir}): ${(err as Error).message}; set TMPDIR to a folder this user can write to (or ingest the logs into --db FILE and query that)`,
    );
  }
}

/** A scratch folder, or none where TMPDIR takes none (missing, read-only, full): the caller does without. */
export function scratchFolderIfAny(): ScratchFolder | undefined {
  try {
    return scratchFolder();
  } catch (err) {
    if (err instanceof StoreError) return undefined;
    throw err;
  }
}

/** Marks a folder as in use: its modification time is now. */
function touch(path: string): void {
  try {
    const now = new Date();
    utimesSync(path, now, now);
  } catch {
    // removed already
  }
}

const PREFIX = 'resumescope-scratch-';
const TIMELINE_FILE = 'timeline.db';
/** The database a rules worker sets its findings down in (detect/findings-file.ts). */
export const FINDINGS_FILE = 'findings.db';
/** Where the pipeline copies its Nth input with no bytes to go back to (stdin, gzip: read/spool.ts). */
export function spoolPath(folder: ScratchFolder, n: number): string {
  return join(folder.path, `spool-${n}.log`);
}
/** What a scratch folder holds: the databases and SQLite's files beside them, and spools. A folder with anything else is not ours to remove. */
const DATABASE_FILES = new Set([TIMELINE_FILE, FINDINGS_FILE].flatMap((f) => [f, `${f}-wal`, `${f}-shm`, `${f}-journal`]));
const ours = (f: string): boolean => DATABASE_FILES.has(f) || /^spool-\d+\.log$/.test(f);

/**
 * A run killed by a signal (Ctrl-C, the OOM killer) runs no exit handler, and its scratch database
 * (a GB at 3M lines) would stay behind: each folder names its process, and the next scratch
 * database removes those whose process is gone and in which nothing changed for ORPHAN_MIN_AGE_MS.
 * A signal handler would do it sooner, but would hold Ctrl-C back until the SQLite work in progress
 * yields, seconds at a time.
 *
 * The pid alone proves nothing: a run in another PID namespace (another container sharing /tmp)
 * has no process here, and may even share this one's pid. So a live run touches its folder every
 * HEARTBEAT_MS, and a folder is an orphan only once its owner has missed many beats.
 */
export function removeOrphans(dir: string = tmpdir(), now: number = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = /^resumescope-scratch-(\d+)-/.exec(name)?.[1];
    if (pid === undefined || alive(Number(pid))) continue;
    const path = join(dir, name);
    try {
      const files = readdirSync(path);
      if (files.every(ours) && lastChange(path, files) <= now - ORPHAN_MIN_AGE_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // gone already, or not a folder
    }
  }
}

/**
 * How long nothing in a folder whose pid is gone must have changed before it is taken for an
 * orphan. A live run touches its folder every HEARTBEAT_MS (5 min), late only while its event loop
 * is held by one synchronous SQLite step (seconds; minutes at worst on millions of lines), and its
 * spool and databases change as it writes them: an hour is a dozen missed beats. A killed run's
 * folder is reclaimed by the first run after that hour.
 */
export const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;
const HEARTBEAT_MS = 5 * 60 * 1000;

/** When the folder or any file in it last changed (ms): the heartbeat touches the folder, writes change the files. */
function lastChange(path: string, files: string[]): number {
  let last = statSync(path).mtimeMs;
  for (const f of files) last = Math.max(last, statSync(join(path, f)).mtimeMs);
  return last;
}

/** Whether a process with this pid lives in this PID namespace (no answer for another's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it lives, as another user's process.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
