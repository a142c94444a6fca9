import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Db } from './db.js';
import { beginDerivedLoad, deriveTimeline, dirtySessions, shadowProxyDuplicates } from './derive.js';
import type { DeriveWorkerData, FromDeriveWorker, ToDeriveWorker } from './derive-worker-protocol.js';

// derive on both cores: reading a log's records in session order (index probes scattered over the
// whole table) costs as much as writing what the fold makes of them, and the fold itself is cheap.
// A worker thread reads and folds over its own read-only connection while this thread writes. The
// database must be in WAL mode, where a reader and a writer do not block each other.

/** The worker's script, next to this module once built (dist/); from src/ (vitest) there is none. */
export const DERIVE_WORKER_SCRIPT = new URL('./derive-worker.js', import.meta.url);

/** From this many records on, the worker's start (about 100 ms) pays for itself. */
export const DERIVE_THREAD_MIN_RECORDS = 20_000;

export interface DeriveThreadOptions {
  /** `auto`: a worker from DERIVE_THREAD_MIN_RECORDS records on; `worker`: always, where it can; `inline`: never. */
  threads?: 'auto' | 'worker' | 'inline';
  /** The worker's script (tests). */
  script?: URL;
}

/** deriveTimeline(), with the reading and folding in a worker thread where that can pay. Same rows. */
export async function deriveOnTwoThreads(db: Db, opts: DeriveThreadOptions = {}): Promise<number> {
  const dirty = dirtySessions(db);
  if (dirty === 0) return 0;
  const script = opts.script ?? DERIVE_WORKER_SCRIPT;
  if (!canShare(db, opts.threads ?? 'auto', script)) return deriveTimeline(db);
  // Committed first: the worker reads what is committed, and proxy lines a server line shadows are not folded.
  db.transaction(() => shadowProxyDuplicates(db))();
  const worker = new Worker(script, { workerData: { path: db.name } satisfies DeriveWorkerData });
  db.exec('BEGIN');
  try {
    const load = beginDerivedLoad(db);
    await new Promise<void>((resolve, reject) => {
      worker.on('message', (m: FromDeriveWorker) => {
        if (m.type === 'end') return resolve();
        try {
          for (const [session, fold] of m.folds) load.write(session, fold);
          worker.postMessage('ack' satisfies ToDeriveWorker);
        } catch (err) {
          reject(err as Error);
        }
      });
      worker.on('error', (e) => reject(new WorkerFailed(e.message)));
      worker.on('exit', (code) => reject(new WorkerFailed(`the derive worker thread exited with code ${code}`)));
    });
    load.finish();
    db.exec('COMMIT');
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    // A worker that failed loses nothing: the derive runs again here, where a real error (the disk) throws.
    if (!(err instanceof WorkerFailed)) throw err;
    return deriveTimeline(db);
  } finally {
    await worker.terminate();
  }
  return dirty;
}

/** The worker thread failed (as opposed to this thread's writes). */
class WorkerFailed extends Error {}

function canShare(db: Db, mode: 'auto' | 'worker' | 'inline', script: URL): boolean {
  if (mode === 'inline') return false;
  if (db.memory || db.name === '' || !existsSync(db.name)) return false;
  if (db.pragma('journal_mode', { simple: true }) !== 'wal') return false;
  if (script.protocol !== 'file:' || !existsSync(fileURLToPath(script))) return false;
  return mode === 'worker' || (db.prepare('SELECT max(id) FROM records').pluck().get() as number | null ?? 0) >= DERIVE_THREAD_MIN_RECORDS;
}
