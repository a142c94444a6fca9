import { parentPort, workerData } from 'node:worker_threads';
import { openDb } from './db.js';
import { dirtySessionChunks } from './session-chunks.js';
import { MAX_CHUNKS_IN_FLIGHT, MAX_RECORDS_IN_FLIGHT, type DeriveWorkerData, type FromDeriveWorker } from './derive-worker-protocol.js';

// The worker thread of store/derive-threads.ts: claims chunks of dirty sessions from the shared
// counter, reads and folds them over its own read-only connection, and hands the folds to the main
// thread, which writes them. At most MAX_CHUNKS_IN_FLIGHT chunks wait to be written, holding at most
// MAX_RECORDS_IN_FLIGHT records unless there is only one.

const port = parentPort!;
const { path, counter, soloRecords } = workerData as DeriveWorkerData;
// The records of each chunk sent and not yet written, oldest first: the main thread writes (and acknowledges) them in order.
const inFlight: number[] = [];
let wake: (() => void) | null = null;
const post = (m: FromDeriveWorker) => port.postMessage(m);
const mayPost = (records: number) =>
  inFlight.length === 0 || (inFlight.length < MAX_CHUNKS_IN_FLIGHT && inFlight.reduce((a, b) => a + b, records) <= MAX_RECORDS_IN_FLIGHT);

port.on('message', () => {
  inFlight.shift();
  wake?.();
  wake = null;
});

const db = openDb(path, { readonly: true });
// The worker only reads, by index probes scattered over the records: SQLite's default 2 MB page cache reads
// them as fast as better-sqlite3's compiled 16 MB, which at 3M polling lines was 15 MB of derive's peak.
db.pragma('cache_size = -2000');
try {
  const dirty = dirtySessionChunks(db, soloRecords);
  for (let i = Atomics.add(counter, 0, 1); i < dirty.chunks; i = Atomics.add(counter, 0, 1)) {
    if (dirty.solo(i)) {
      post({ type: 'solo', chunk: i });
      continue;
    }
    const { folds, records } = dirty.fold(i);
    while (!mayPost(records)) await new Promise<void>((resolve) => (wake = resolve));
    inFlight.push(records);
    post({ type: 'folds', chunk: i, folds });
  }
  post({ type: 'end' });
} finally {
  db.close();
  port.close();
}
