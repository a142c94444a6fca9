import { parentPort, workerData } from 'node:worker_threads';
import { openDb } from './db.js';
import { foldDirtySessions } from './derive.js';
import { MAX_CHUNKS_IN_FLIGHT, type DeriveWorkerData, type FromDeriveWorker } from './derive-worker-protocol.js';

// The worker thread of store/derive-threads.ts: reads the dirty sessions' records over its own
// read-only connection and folds them, while the main thread writes what it folded.
// At most MAX_CHUNKS_IN_FLIGHT chunks wait to be written: a slow writer makes the reader wait.

const port = parentPort!;
const { path } = workerData as DeriveWorkerData;
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
  for (const folds of foldDirtySessions(db)) {
    while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
    credits--;
    post({ type: 'folds', folds });
  }
  post({ type: 'end' });
} finally {
  db.close();
  port.close();
}
