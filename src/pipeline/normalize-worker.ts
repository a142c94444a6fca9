import { createHash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { splitLineBatches } from '../read/lines.js';
import { fileSource } from '../read/sources.js';
import { LineEncoder } from '../store/source-sink.js';
import { LineStage } from './normalize-lines.js';
import { BATCH_LINES, MAX_IN_FLIGHT, type FromWorker, type ToWorker } from './worker-protocol.js';

// The worker thread of the pipeline: read → split → normalize, one file at a
// time, handing batches of normalized lines to the main thread, which writes
// them to SQLite meanwhile. At most MAX_IN_FLIGHT batches wait to be stored:
// when the writer falls behind, the reader waits (backpressure).

const port = parentPort!;
let credits = MAX_IN_FLIGHT;
let wake: (() => void) | null = null;
let work = Promise.resolve();

const post = (m: FromWorker) => port.postMessage(m);

port.on('message', (m: ToWorker) => {
  if (m.type === 'ack') {
    credits++;
    wake?.();
    wake = null;
  } else {
    work = work.then(() => normalizeFile(m.path, m.inputFormat, m.copyLines));
  }
});

async function send(batch: LineEncoder): Promise<void> {
  while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
  credits--;
  post({ type: 'lines', batch: batch.take() });
}

async function normalizeFile(path: string, inputFormat: string | undefined, copyLines: boolean): Promise<void> {
  const hash = createHash('sha256');
  // The store's encoding (flat cells) crosses the thread far cheaper than line objects would.
  const batch = new LineEncoder();
  try {
    const stage = new LineStage(inputFormat, undefined, copyLines);
    for await (const lines of splitLineBatches(fileSource(path).open(), (c) => hash.update(c))) {
      for (const l of lines) batch.add(stage.normalize(l));
      if (batch.lines >= BATCH_LINES) await send(batch);
    }
    if (batch.lines > 0) await send(batch);
    post({ type: 'end', sha256: hash.digest('hex') });
  } catch (err) {
    // What was read before the error is sent first: a gzip file cut short keeps its lines.
    if (batch.lines > 0) await send(batch);
    post({ type: 'error', message: (err as Error).message, sha256: hash.digest('hex') });
  }
}
