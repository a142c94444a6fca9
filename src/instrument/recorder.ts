import { createWriteStream } from 'node:fs';
import { hostname } from 'node:os';
import { mayHoldCredential, redactInPlace } from '../normalize/redact.js';
import { normalizeSpecObject } from '../normalize/spec-record.js';
import { missingField } from '../model/record.js';
import type { LoggedLine, RecordFields, ResumptionDropNote, ResumptionRecord } from './records.js';
import { NOT_A_RECORD, RECORDS_DROPPED } from './records.js';

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
  /**
   * A file or stream sink holds at most this many bytes of lines the stream has not taken yet
   * (default 8 MiB). Past it, records are dropped and counted, with one warning, until the stream
   * drains; then a note (`RECORDS_DROPPED`) in the log says how many.
   */
  maxUnwrittenBytes?: number;
  /** How long `close()` waits for a file or stream sink to take every line (default 2000 ms; `Infinity`: no limit). */
  closeTimeoutMs?: number;
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
   * not written. Resolves after `closeTimeoutMs` at the latest, with a
   * warning saying how much the sink had not taken.
   */
  close(): Promise<void>;
}

const DEFAULT_MAX_UNWRITTEN_BYTES = 8 * 1024 * 1024;
const DEFAULT_CLOSE_TIMEOUT_MS = 2000;

export function createRecorder(sink: RecordSink, opts: RecorderOptions = {}): Recorder {
  const node = opts.node ?? `${hostname()}/${process.pid}`;
  const clock = opts.clock ?? Date.now;
  const out = openSink(sink, {
    node,
    clock,
    maxUnwrittenBytes: opts.maxUnwrittenBytes ?? DEFAULT_MAX_UNWRITTEN_BYTES,
    closeTimeoutMs: opts.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS,
  });
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

interface SinkOptions {
  node: string;
  clock: () => number;
  maxUnwrittenBytes: number;
  closeTimeoutMs: number;
}

function openSink(sink: RecordSink, opts: SinkOptions): OpenSink {
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

  // What the stream was handed but has not called back for: the memory a
  // stalled reader (a log shipper hung on a pipe) would otherwise grow without
  // limit. Past the bound, records are dropped until the stream drains.
  let unwrittenBytes = 0;
  let unwrittenLines = 0;
  let dropping: Pick<ResumptionDropNote, 'dropped' | 'since' | 'first_seq' | 'last_seq'> | undefined;
  let warnedDropping = false;
  let closed = false;
  let onIdle: (() => void) | undefined;

  const send = (line: string, bytes: number): void => {
    unwrittenBytes += bytes;
    unwrittenLines += 1;
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      unwrittenBytes -= bytes;
      unwrittenLines -= 1;
      if (unwrittenLines === 0) drained();
    };
    try {
      stream.write(line, settle);
    } catch (err) {
      warn(err);
      settle();
    }
  };
  const drained = (): void => {
    if (dropping !== undefined && !closed) {
      const note: ResumptionDropNote = { ts: new Date(opts.clock()).toISOString(), msg: RECORDS_DROPPED, ...dropping, node: opts.node };
      dropping = undefined;
      const line = `${JSON.stringify(note)}\n`;
      send(line, Buffer.byteLength(line));
      return;
    }
    const idle = onIdle;
    onIdle = undefined;
    idle?.();
  };
  const drop = (record: ResumptionRecord): void => {
    if (dropping === undefined) {
      dropping = { dropped: 0, since: record.ts, first_seq: record.seq, last_seq: record.seq };
      if (!warnedDropping) {
        warnedDropping = true;
        process.emitWarning(
          `resumescope recorder: the log stream has not taken ${unwrittenLines} lines (${unwrittenBytes} bytes, bound ${opts.maxUnwrittenBytes}): ` +
            'dropping records until it drains; a note in the log will count them',
        );
      }
    }
    dropping.dropped += 1;
    dropping.last_seq = record.seq;
  };

  return {
    write(record, onDemoted) {
      // Dropping implies lines in flight, whose callbacks end it: no line is serialized only to be dropped.
      if (dropping !== undefined) return drop(record);
      const line = `${JSON.stringify(toLogLine(record, onDemoted))}\n`;
      const bytes = Buffer.byteLength(line);
      if (unwrittenLines > 0 && unwrittenBytes + bytes > opts.maxUnwrittenBytes) return drop(record);
      send(line, bytes);
    },
    close() {
      return new Promise<void>((resolve) => {
        const giveUp = (): void => {
          closed = true;
          onIdle = undefined;
          const unnoted = dropping === undefined ? '' : `, and ${dropping.dropped} records dropped before were not noted in it`;
          process.emitWarning(
            `resumescope recorder: closed after ${opts.closeTimeoutMs} ms with ${unwrittenLines} lines (${unwrittenBytes} bytes) the log stream had not taken${unnoted}`,
          );
          file?.destroy();
          resolve();
        };
        // Infinity waits as long as the stream takes (setTimeout would fire at once).
        const timer = opts.closeTimeoutMs === Infinity ? undefined : setTimeout(giveUp, opts.closeTimeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          resolve();
        };
        const end = (): void => {
          closed = true;
          if (file === undefined || file.destroyed) finish();
          else file.end(finish);
        };
        if (unwrittenLines === 0) end();
        else onIdle = end;
      });
    },
  };
}
