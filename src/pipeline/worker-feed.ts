import { Worker } from 'node:worker_threads';
import { splittingOf, type Splitting } from '../read/entries.js';
import { workerScriptBuilt } from '../store/second-connection.js';
import { IngestAborted, type SourceFeed, type SourceSink } from '../store/source-sink.js';
import { LineStage } from './normalize-lines.js';
import { decodeRawLines } from './raw-lines.js';
import type { FromWorker, HandOver, ToWorker } from './worker-protocol.js';

/** The worker's script, next to this module once built (dist/); from src/ (vitest) there is none. */
export const WORKER_SCRIPT = new URL('./normalize-worker.js', import.meta.url);

export function workerAvailable(script: URL = WORKER_SCRIPT): boolean {
  return workerScriptBuilt(script);
}

interface Pending {
  name: string;
  path: string;
  sink: SourceSink;
  copyLines: boolean;
  /** Normalizes the lines the worker hands over as read (made with the first of them: it brings the format). */
  stage?: LineStage;
  onLines: ((source: string, lines: number) => void) | undefined;
  resolve: () => void;
  reject: (e: Error) => void;
}

/**
 * V8 sizes a worker's young generation for throughput (about 48 MB here). 8 MB kept ingest of 1M
 * production lines as fast (9.0–9.2 s against 9.2–9.3 s) with a peak 20–27 MB lower; 4 MB was slower.
 */
const NORMALIZE_WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 };

/**
 * The main thread's side of the normalizing worker: one worker for a whole
 * run (a folder of a thousand files pays its start-up once), one file at a
 * time. Batches are written to the sink as they arrive and acknowledged after
 * they are stored, which lets the worker send the next.
 */
export class NormalizeWorker {
  private readonly worker: Worker;
  private pending: Pending | undefined;
  private sha256: string | null = null;
  /** Set when the worker died or was stopped: nothing more is sent to it. */
  broken: Error | undefined;

  constructor(
    script: URL = WORKER_SCRIPT,
    private readonly handOver: HandOver = 'auto',
  ) {
    this.worker = new Worker(script, { resourceLimits: NORMALIZE_WORKER_LIMITS });
    this.worker.on('message', (m: FromWorker) => this.onMessage(m));
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', (code) => this.fail(new Error(`it exited with code ${code}`)));
  }

  /** One file's lines, normalized in the worker. */
  feed(path: string, opts: { inputFormat?: string; onLines?: Pending['onLines'] } & Splitting, copyLines = true): SourceFeed {
    const { inputFormat, onLines } = opts;
    return {
      run: (sink) =>
        new Promise<void>((resolve, reject) => {
          if (this.broken) return reject(this.aborted(sink.stats.name, this.broken));
          this.sha256 = null;
          this.pending = { name: sink.stats.name, path, sink, copyLines, onLines, resolve, reject };
          this.post({ type: 'open', path, copyLines, handOver: this.handOver, splitting: splittingOf(opts), ...(inputFormat !== undefined && { inputFormat }) });
        }),
      digest: () => this.sha256,
    };
  }

  async close(): Promise<void> {
    this.broken ??= new Error('it was stopped');
    await this.worker.terminate();
  }

  private post(m: ToWorker): void {
    this.worker.postMessage(m);
  }

  private onMessage(m: FromWorker): void {
    const p = this.pending;
    if (p === undefined) return;
    if (m.type === 'lines' || m.type === 'raw') {
      try {
        if (m.type === 'lines') p.sink.addBatch(m.batch);
        else {
          const stage = (p.stage ??= new LineStage(m.format, undefined, p.copyLines, p.path));
          p.sink.addLines(Array.from(decodeRawLines(m.lines), (l) => stage.normalize(l)));
        }
      } catch (err) {
        // The store failed (disk full, locked): the worker must not go on reading into a rolled-back load.
        this.settle().reject(err as Error);
        void this.close();
        return;
      }
      p.onLines?.(p.name, p.sink.stats.lines);
      this.post({ type: 'ack' });
      return;
    }
    this.sha256 = m.sha256;
    if (m.type === 'end') this.settle().resolve();
    else this.settle().reject(new Error(m.message));
  }

  private settle(): Pending {
    const p = this.pending!;
    this.pending = undefined;
    return p;
  }

  private fail(e: Error): void {
    if (this.broken === undefined) this.broken = e;
    if (this.pending === undefined) return;
    const p = this.settle();
    p.reject(this.aborted(p.name, e));
  }

  private aborted(name: string, e: Error): IngestAborted {
    return new IngestAborted(`${name}: the thread normalizing it stopped (${e.message}); nothing of this file was stored`);
  }
}
