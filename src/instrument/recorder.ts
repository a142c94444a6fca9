import { createWriteStream } from 'node:fs';
import { hostname } from 'node:os';
import { mayHoldCredential, redactInPlace } from '../normalize/redact.js';
import { normalizeSpecObject } from '../normalize/spec-record.js';
import { missingField } from '../model/record.js';
import type { LoggedLine, RecordFields, ResumptionRecord } from './records.js';
import { NOT_A_RECORD } from './records.js';

/**
 * A file path (appended to) or a stream (left open), which get NDJSON lines;
 * or a function, which gets each record as an object, as built (an
 * in-process consumer: pass it through `toLogLine` before serializing it).
 */
export type RecordSink = string | NodeJS.WritableStream | ((record: ResumptionRecord) => void);

export interface RecorderOptions {
  /** Which server instance writes; default `<hostname>/<pid>`, so that a restart is a new node whose `seq` starts again. */
  node?: string;
  /** Epoch milliseconds; default `Date.now`. */
  clock?: () => number;
}

export interface Recorder {
  readonly node: string;
  /**
   * Stamps `ts`, `seq` and `node`, writes one line, and returns the record.
   * To a file or stream, a record the analyzer would reject (a required field
   * it cannot fill, such as the session of an event stored outside any
   * request) is written as a note instead (see `toLogLine`).
   */
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
  let warned = false;
  const warnOnce = (why: string): void => {
    if (warned) return;
    warned = true;
    process.emitWarning(`resumescope recorder: wrote a note in place of a record the analyzer would reject (${why})`);
  };
  let closing: Promise<void> | undefined;
  return {
    node,
    record(fields) {
      seq += 1;
      const written: ResumptionRecord = { ts: new Date(clock()).toISOString(), ...fields, seq, node };
      scrub(written);
      if (closing === undefined) out.write(written, warnOnce);
      return written;
    },
    close: () => (closing ??= out.close()),
  };
}

/**
 * The line to write for a record: the record itself, or, where the analyzer
 * would reject it, a note with the same fields but no `kind`, which the
 * analyzer counts as an ignored line: the log stays whole and says why.
 */
export function toLogLine(record: ResumptionRecord, onDemoted?: (why: string) => void): LoggedLine {
  const outcome = normalizeSpecObject(record as unknown as Record<string, unknown>);
  // One that the analyzer reads only after a stateless request's line naming its stream: this recorder writes the version where it has one.
  if (outcome.type === 'records' && outcome.inherits === undefined) return record;
  const reason = outcome.type === 'rejected' ? outcome.reason : outcome.type === 'records' ? missingField(record.kind, 'session') : 'not a record';
  onDemoted?.(reason);
  const { kind, ...rest } = record;
  return { ...rest, msg: NOT_A_RECORD, record_kind: kind, why: reason };
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
  write(record: ResumptionRecord, onDemoted: (why: string) => void): void;
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
    write(record, onDemoted) {
      lastWrite = new Promise((resolve) => {
        try {
          stream.write(`${JSON.stringify(toLogLine(record, onDemoted))}\n`, () => resolve());
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
