import { createWriteStream } from 'node:fs';
import { hostname } from 'node:os';
import { mayHoldCredential, redactInPlace } from '../normalize/redact.js';
import type { RecordFields, ResumptionRecord } from './records.js';

export type RecordSink = string | NodeJS.WritableStream | ((record: ResumptionRecord) => void);

export interface RecorderOptions {
  /** Which server instance writes; default `<hostname>/<pid>`, so that a restart is a new node whose `seq` starts again. */
  node?: string;
  /** Epoch milliseconds; default `Date.now`. */
  clock?: () => number;
}

export interface Recorder {
  readonly node: string;
  /** Stamps `ts`, `seq` and `node`, writes one line, and returns what it wrote. */
  record(fields: RecordFields): ResumptionRecord;
  /**
   * Resolves once every line written so far is handed to the sink; ends the
   * sink only when the recorder opened it (a path). Records after close are
   * not written.
   */
  close(): Promise<void>;
}

export function createRecorder(sink: RecordSink, opts: RecorderOptions = {}): Recorder {
  const node = opts.node ?? `${hostname()}/${process.pid}`;
  const clock = opts.clock ?? Date.now;
  const out = openSink(sink);
  let seq = 0;
  let closing: Promise<void> | undefined;
  return {
    node,
    record(fields) {
      seq += 1;
      const written: ResumptionRecord = { ts: new Date(clock()).toISOString(), ...fields, seq, node };
      scrub(written);
      if (closing === undefined) out.write(written);
      return written;
    },
    close: () => (closing ??= out.close()),
  };
}

/**
 * The log must never hold a credential: a `reason` copied from an error body,
 * or a `principal` that is a bearer token or JWT after all, is redacted as
 * resumescope redacts what it reads. Only the free-text fields can carry one.
 */
function scrub(r: ResumptionRecord): void {
  const texts = [r.principal, r.reason, r.tool, r.method];
  if (texts.some((t) => t !== undefined && mayHoldCredential(t))) redactInPlace(r);
}

interface OpenSink {
  write(record: ResumptionRecord): void;
  close(): Promise<void>;
}

function openSink(sink: RecordSink): OpenSink {
  // A broken log must never break the server it observes: warn once, keep serving.
  let warned = false;
  const warn = (err: unknown): void => {
    if (warned) return;
    warned = true;
    process.emitWarning(`resumescope recorder: cannot write records: ${String(err)}`);
  };
  if (typeof sink === 'function') {
    return {
      write(record) {
        try {
          sink(record);
        } catch (err) {
          warn(err);
        }
      },
      close: async () => {},
    };
  }
  const file = typeof sink === 'string' ? createWriteStream(sink, { flags: 'a' }) : undefined;
  const stream: NodeJS.WritableStream = file ?? (sink as NodeJS.WritableStream);
  stream.on('error', warn);
  let lastWrite: Promise<void> = Promise.resolve();
  return {
    write(record) {
      lastWrite = new Promise((resolve) => {
        try {
          stream.write(`${JSON.stringify(record)}\n`, () => resolve());
        } catch (err) {
          warn(err);
          resolve();
        }
      });
    },
    async close() {
      await lastWrite;
      if (file === undefined || file.destroyed) return;
      await new Promise<void>((resolve) => file.end(() => resolve()));
    },
  };
}
