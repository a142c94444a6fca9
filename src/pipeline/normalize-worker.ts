import { createHash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { splitLineBatches, type Splitting } from '../read/entries.js';
import { fileSource } from '../read/sources.js';
import { LineEncoder } from '../store/line-cells.js';
import { LineStage } from './normalize-lines.js';
import { LinePieces, type JoinedLine } from './line-pieces.js';
import { encodeRawLines } from './raw-lines.js';
import { BATCH_CELLS, BATCH_CHARS, BATCH_LINES, MAX_IN_FLIGHT, type FromWorker, type HandOver, type ToWorker } from './worker-protocol.js';

// The worker thread of the pipeline: read → split → normalize, one file at a
// time, handing batches of normalized lines to the main thread, which writes
// them to SQLite meanwhile. At most MAX_IN_FLIGHT batches wait to be stored:
// when the writer falls behind, the reader waits (backpressure). When the
// writer has caught up instead (every batch stored: it waits on this thread),
// the next batch goes over as read, and the main thread normalizes it itself:
// normalizing costs about twice what storing does, and each thread then gets
// nearer half of the sum.

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
    work = work.then(() => normalizeFile(m.path, m.inputFormat, m.copyLines, m.handOver, m.splitting));
  }
});

async function sendWhenAllowed(m: FromWorker): Promise<void> {
  while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
  credits--;
  post(m);
}

/** One file's next batch: normalized here, or (`raw`) collected as read for the main thread. */
class Batch {
  private readonly normalized = new LineEncoder();
  private raw: JoinedLine[] | undefined;
  private rawChars = 0;

  constructor(
    private readonly stage: LineStage,
    private readonly handOver: HandOver,
  ) {}

  get lines(): number {
    return this.raw?.length ?? this.normalized.lines;
  }

  /** Whether the batch should go now: BATCH_LINES lines, or their records or text past what that many usually come to. */
  get full(): boolean {
    return this.lines >= BATCH_LINES || (this.raw !== undefined ? this.rawChars >= BATCH_CHARS : this.normalized.cellCount >= BATCH_CELLS);
  }

  add(l: JoinedLine): void {
    // A line of a megabyte or more (an OTLP export request) starts a batch normalized here: handed over,
    // it was parsed on the main thread while the next was parsed here, and lines of 16 MB took analyze to
    // 431 MB (387 MB normalized here).
    const chars = 'text' in l ? l.text.length : 'preview' in l ? l.preview.length : 0;
    if (this.lines === 0) this.raw = this.handsOver() && chars < BATCH_CHARS ? [] : undefined;
    if (this.raw !== undefined) {
      this.raw.push(l);
      this.rawChars += chars;
    } else this.normalized.add(this.stage.normalize(l));
  }

  async send(): Promise<void> {
    const raw = this.raw;
    this.raw = undefined;
    this.rawChars = 0;
    // The format is read when the batch goes: a raw batch is begun only once it is known.
    if (raw !== undefined) await sendWhenAllowed({ type: 'raw', format: this.stage.formatName!, lines: encodeRawLines(raw) });
    else await sendWhenAllowed({ type: 'lines', batch: this.normalized.take() });
  }

  /**
   * Decided as a batch begins, just after the one before went: with at most that one waiting, the main
   * thread stores it sooner than this thread could normalize the next, and would then wait. Until the
   * file's format is known, every line could change it: those lines stay here.
   */
  private handsOver(): boolean {
    if (this.handOver === 'never' || this.stage.formatName === undefined) return false;
    return this.handOver === 'always' || credits >= MAX_IN_FLIGHT - 1;
  }
}

async function normalizeFile(path: string, inputFormat: string | undefined, copyLines: boolean, handOver: HandOver, splitting: Splitting): Promise<void> {
  const hash = createHash('sha256');
  const stage = new LineStage(inputFormat, undefined, copyLines, path);
  // The store's encoding (flat cells) crosses the thread far cheaper than line objects would.
  const batch = new Batch(stage, handOver);
  // Joined before a batch is cut: the lines handed over are normalized on the other thread.
  const pieces = new LinePieces();
  const add = async (lines: JoinedLine[]) => {
    for (const l of lines) {
      batch.add(l);
      if (batch.full) await batch.send();
    }
  };
  try {
    for await (const lines of splitLineBatches(fileSource(path).open(), (c) => hash.update(c), splitting)) await add(pieces.push(lines));
    await add(pieces.end());
    if (batch.lines > 0) await batch.send();
    post({ type: 'end', sha256: hash.digest('hex') });
  } catch (err) {
    // What was read before the error is sent first: a gzip file cut short keeps its lines.
    if (batch.lines > 0) await batch.send();
    post({ type: 'error', message: (err as Error).message, sha256: hash.digest('hex') });
  }
}
