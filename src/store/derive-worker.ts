import { parentPort, workerData } from 'node:worker_threads';
import { openDb } from './db.js';
import { dirtySessionChunks } from './derive.js';
import { MAX_CHUNKS_IN_FLIGHT, type DeriveWorkerData, type FromDeriveWorker } from './derive-worker-protocol.js';

// The worker thread of store/derive-threads.ts: claims chunks of dirty sessions from the shared
// counter, reads and folds them over its own read-only connection, and hands the folds to the main
// thread, which writes them. At most MAX_CHUNKS_IN_FLIGHT chunks wait to be written.

const port = parentPort!;
const { path, counter } = workerData as DeriveWorkerData;
let credits = MAX_CHUNKS_IN_FLIGHT;
let wake: (() => void) | null = null;
const post = (m: FromDeriveWorker) => port.postMessage(m);

port.on('message', () => {
  credits++;
  wake?.();
  wake = null;
});

const db = openDb(path, { readonly: true });
try {
  const dirty = dirtySessionChunks(db);
  for (let i = Atomics.add(counter, 0, 1); i < dirty.chunks; i = Atomics.add(counter, 0, 1)) {
    const folds = dirty.fold(i);
    while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
    credits--;
    post({ type: 'folds', chunk: i, folds });
  }
  post({ type: 'end' });
} finally {
  db.close();
  port.close();
}
