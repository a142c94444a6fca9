import type { SessionFold } from './fold-session.js';

// What store/derive-threads.ts and its worker thread (derive-worker.ts) send each other. Types only.

export interface DeriveWorkerData {
  /** The timeline database's file, opened read-only by the worker. */
  path: string;
  /** The next chunk of dirty sessions to claim, shared by both threads (Atomics.add). */
  counter: Int32Array;
  /** Sessions longer than this are left to the main thread (store/session-chunks.ts, SOLO_FOLD_RECORDS). */
  soloRecords: number;
}

export type FromDeriveWorker =
  /** One chunk of dirty sessions, folded. */
  | { type: 'folds'; chunk: number; folds: [string, SessionFold][] }
  /** A chunk this worker claimed and left to the main thread to fold (a session too long to fold on both threads at once). */
  | { type: 'solo'; chunk: number }
  /** No chunk left to claim: every chunk this worker claimed was sent. */
  | { type: 'end' };

/** The main thread wrote one more of the worker's chunks: it may send another. */
export type ToDeriveWorker = 'ack';

/** Chunks sent and not yet written: the queue between the threads is bounded, so memory stays flat. */
export const MAX_CHUNKS_IN_FLIGHT = 4;

/**
 * ... and so are their records, where sessions are long (a chunk is then one session of thousands of
 * records): a chunk is sent only when nothing is in flight or this many records would not be passed.
 */
export const MAX_RECORDS_IN_FLIGHT = 16_384;
