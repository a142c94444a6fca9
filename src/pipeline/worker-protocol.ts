import type { LineBatch } from '../store/source-sink.js';

// The messages between the pipeline and its normalizing worker thread.
// Types only, so that both sides import them and cannot drift.

export type ToWorker =
  /** Read, split and normalize this file (one at a time: the next comes after its end). */
  | { type: 'open'; path: string; inputFormat?: string; copyLines: boolean }
  /** The main thread stored one more batch: the worker may send another. */
  | { type: 'ack' };

export type FromWorker =
  | { type: 'lines'; batch: LineBatch }
  /** The file was read to its end; sha256 is its content hash. */
  | { type: 'end'; sha256: string }
  /** The file could not be read on (after the lines already sent): why, in the reader's words. */
  | { type: 'error'; message: string; sha256: string };

/** Lines per message: few enough messages that their cost is noise, small enough to keep memory flat. */
export const BATCH_LINES = 2000;

/** Batches sent and not yet stored: the queue between the threads is bounded, so memory stays flat. */
export const MAX_IN_FLIGHT = 4;
