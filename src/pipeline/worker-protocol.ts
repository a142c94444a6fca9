import type { LineBatch } from '../store/line-cells.js';
import type { Splitting } from '../read/entries.js';
import type { RawCell } from './raw-lines.js';

// The messages between the pipeline and its normalizing worker thread.
// Types only, so that both sides import them and cannot drift.

export type ToWorker =
  /** Read, split and normalize this file (one at a time: the next comes after its end). */
  | { type: 'open'; path: string; inputFormat?: string; copyLines: boolean; handOver: HandOver; splitting: Required<Splitting> }
  /** The main thread stored one more batch: the worker may send another. */
  | { type: 'ack' };

export type FromWorker =
  | { type: 'lines'; batch: LineBatch }
  /**
   * Lines as read (raw-lines.ts), for the main thread to normalize itself, as the file's format
   * (known by then, and kept to the file's end) reads them: it had stored every batch and was waiting.
   */
  | { type: 'raw'; format: string; lines: RawCell[] }
  /** The file was read to its end; sha256 is its content hash. */
  | { type: 'end'; sha256: string }
  /** The file could not be read on (after the lines already sent): why, in the reader's words. */
  | { type: 'error'; message: string; sha256: string };

/** Lines per message: few enough messages that their cost is noise, small enough to keep memory flat. */
export const BATCH_LINES = 2000;

/**
 * A message also ends before it passes this many cells of normalized records, or this many characters
 * of lines handed over as read: a line may hold a hundred records (an OTLP export request per line), and
 * 2,000 such lines a message, four in flight, took ingest of 1M records to 608 MB. Twice what 2,000 lines
 * of one record each (about 15 cells, 240 characters) come to, so that those still go 2,000 a message.
 */
export const BATCH_CELLS = 64 * 1024;
export const BATCH_CHARS = 1024 * 1024;

/** Batches sent and not yet stored: the queue between the threads is bounded, so memory stays flat. */
export const MAX_IN_FLIGHT = 4;

/**
 * Whether the worker hands lines over unnormalized to a main thread that has caught up: `auto`
 * whenever it has (no batch waiting to be stored); `always` for every batch once the format is
 * known, and `never` (tests: either way the rows are the same).
 */
export type HandOver = 'auto' | 'always' | 'never';
