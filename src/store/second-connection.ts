import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.js';

// What a second thread needs to share a run's work: a database file it can open beside this
// connection, and its script built (dist/; from src/, as under vitest, there is none).

export type ThreadMode = 'auto' | 'worker' | 'inline';

/** From this many records on, a second thread's start (100-150 ms: a thread, its modules, a connection) pays for itself. */
const SECOND_THREAD_MIN_RECORDS = 20_000;

/**
 * Whether a worker thread running `script` may share this database's work: not `inline`, a file
 * (not ':memory:' nor SQLite's anonymous temporary file), the script built, and for `auto` a log
 * large enough. `writing`: this connection writes meanwhile, which a reader beside it survives in WAL mode only.
 */
export function secondThreadCan(db: Db, mode: ThreadMode, script: URL, opts: { writing?: boolean } = {}): boolean {
  if (mode === 'inline') return false;
  if (db.memory || db.name === '' || !existsSync(db.name)) return false;
  if (opts.writing && db.pragma('journal_mode', { simple: true }) !== 'wal') return false;
  if (!workerScriptBuilt(script)) return false;
  return mode === 'worker' || ((db.prepare('SELECT max(id) FROM records').pluck().get() as number | null) ?? 0) >= SECOND_THREAD_MIN_RECORDS;
}

/** Whether a worker thread's script is there to run: built into dist/ (from src/, as under vitest, there is none). */
export function workerScriptBuilt(script: URL): boolean {
  return script.protocol === 'file:' && existsSync(fileURLToPath(script));
}
