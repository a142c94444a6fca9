import { Worker } from 'node:worker_threads';
import type { Db } from './db.js';
import { secondThreadCan, type ThreadMode } from './second-connection.js';
import { beginDerivedLoad, deriveTimeline, dirtySessions, shadowProxyDuplicates } from './derive.js';
import { dirtySessionChunks, SOLO_FOLD_RECORDS, SoloFoldGarbage } from './session-chunks.js';
import type { StreamedFold } from './fold-session.js';
import type { DeriveWorkerData, FromDeriveWorker, ToDeriveWorker } from './derive-worker-protocol.js';

// derive on both cores: reading a log's records in session order (index probes scattered over the
// whole table) costs more than writing what the fold makes of them, and the fold itself is cheap.
// A worker thread reads and folds over its own read-only connection, and so does this thread between
// writing what both folded. The database must be in WAL mode, where a reader and a writer do not
// block each other.

/** The worker's script, next to this module once built (dist/); from src/ (vitest) there is none. */
const DERIVE_WORKER_SCRIPT = new URL('./derive-worker.js', import.meta.url);

export interface DeriveThreadOptions {
  /** `auto`: a worker from SECOND_THREAD_MIN_RECORDS records on; `worker`: always, where it can; `inline`: never. */
  threads?: ThreadMode;
  /** The worker's script (tests). */
  script?: URL;
  /** Sessions longer than this are folded on this thread alone (default SOLO_FOLD_RECORDS; tests). */
  soloRecords?: number;
}

/**
 * deriveTimeline(), with the reading and folding shared with a worker thread where that can pay: both
 * threads claim chunks of sessions from one counter, and this thread writes every chunk in chunk order,
 * so the derived tables get the same rows, in the same order, as on one thread.
 */
export async function deriveOnTwoThreads(db: Db, opts: DeriveThreadOptions = {}): Promise<number> {
  const dirty = dirtySessions(db);
  // Nothing to fold; what is left (session-less lines to pair) is done on this thread.
  if (dirty === 0) return deriveTimeline(db);
  const script = opts.script ?? DERIVE_WORKER_SCRIPT;
  if (!secondThreadCan(db, opts.threads ?? 'auto', script, { writing: true })) return deriveTimeline(db);
  // Committed first: the worker reads what is committed, and proxy lines a server line shadows are not folded.
  db.transaction(() => shadowProxyDuplicates(db))();
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const soloRecords = opts.soloRecords ?? SOLO_FOLD_RECORDS;
  const worker = new Worker(script, { workerData: { path: db.name, counter, soloRecords } satisfies DeriveWorkerData, resourceLimits: DERIVE_WORKER_LIMITS });
  db.exec('BEGIN');
  try {
    const load = beginDerivedLoad(db);
    const chunks = dirtySessionChunks(db, soloRecords);
    // Folded chunks waiting for the ones before them; the worker's are acknowledged once written. A solo chunk the
    // worker claimed is folded here when its turn comes: every session too long to fold twice at once is folded on
    // this thread, one after another, and never copied between threads.
    const waiting = new Map<number, { folds: [string, StreamedFold][] | 'fold-here'; fromWorker: boolean }>();
    let next = 0;
    const garbage = new SoloFoldGarbage();
    const writeReady = () => {
      for (let c = waiting.get(next); c !== undefined; c = waiting.get(next)) {
        if (c.folds === 'fold-here') garbage.settle();
        for (const [session, fold] of c.folds === 'fold-here' ? chunks.foldForWriting(next) : c.folds) load.write(session, fold);
        garbage.written(chunks.solo(next));
        waiting.delete(next++);
        if (c.fromWorker) worker.postMessage('ack' satisfies ToDeriveWorker);
      }
    };
    let workerDone = false;
    let failed: Error | undefined;
    let wake: () => void = () => {};
    worker.on('message', (m: FromDeriveWorker) => {
      if (m.type === 'end') workerDone = true;
      else if (m.type === 'solo') waiting.set(m.chunk, { folds: 'fold-here', fromWorker: false });
      else waiting.set(m.chunk, { folds: m.folds, fromWorker: true });
      wake();
    });
    worker.on('error', (e) => ((failed ??= new WorkerFailed(e.message)), wake()));
    worker.on('exit', (code) => (workerDone || (failed ??= new WorkerFailed(`the derive worker thread exited with code ${code}`)), wake()));
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
    /** Writes what is folded, waiting for the worker's chunks, until every chunk before `end` is written. */
    const writeUpTo = async (end: number) => {
      while (next < end) {
        writeReady();
        if (failed) throw failed;
        // Every chunk the worker claimed came before its end: one still missing then is a bug, not a wait.
        if (workerDone && next < end) throw new Error(`derive: chunk ${next} of ${chunks.chunks} was claimed and never folded`);
        if (next < end) await new Promise<void>((resolve) => (wake = resolve));
      }
    };
    // Forced onto the worker (tests): it folds the first chunk, however fast this thread would have been.
    if (opts.threads === 'worker') while (waiting.size === 0 && !workerDone && !failed) await new Promise<void>((resolve) => (wake = resolve));
    for (let i = Atomics.add(counter, 0, 1); i < chunks.chunks; i = Atomics.add(counter, 0, 1)) {
      // A solo chunk is folded once every chunk before it is written, so that no other fold waits beside it.
      if (chunks.solo(i)) {
        await writeUpTo(i);
        garbage.settle();
      }
      waiting.set(i, { folds: chunks.foldForWriting(i), fromWorker: false });
      writeReady();
      if (failed) throw failed;
      await turn(); // the worker's chunks come in between
    }
    await writeUpTo(chunks.chunks);
    load.finish();
    db.exec('COMMIT');
    garbage.settle();
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

/**
 * V8 sizes a worker's young generation for throughput, and a fold's garbage (a session's records made
 * into objects, then its rows) piled up there: at 3M lines of the polling shape (sessions of 85k records,
 * then folded whole) derive peaked at 682 MB, with 16 MB at 519 MB; 1M production lines took as long.
 */
const DERIVE_WORKER_LIMITS = { maxYoungGenerationSizeMb: 16 };
