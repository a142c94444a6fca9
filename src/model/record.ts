// The normalized record: what every input format becomes before it is stored.
// Field names follow the log format (README, "Input"); event ids are opaque strings
// (the integer 1204 and the string "1204" are the same id).

export const RECORD_KINDS = [
  'session.created',
  'session.state_changed',
  'session.terminated',
  'session.evicted',
  'stream.opened',
  'stream.closed',
  'stream.fenced',
  'event.sent',
  'event.replayed',
  'buffer.trimmed',
  'upgrade',
  'request.sent',
  'request.answered',
  'request.cancelled',
  'request.reissued',
  'request.timed_out',
  'call',
  'http',
] as const;

export type RecordKind = (typeof RECORD_KINDS)[number];

export const DECISIONS = ['resume', 'attach', 'fresh', 'reject'] as const;
export type Decision = (typeof DECISIONS)[number];

/** Where a stored record came from: the server's own log, or inferred from a proxy `http` record. */
export type Origin = 'server' | 'proxy';

export interface NormalizedRecord {
  kind: RecordKind;
  tsMs: number;
  /** The part of `ts` below the millisecond (0 ≤ x < 1), where it has one: orders records within a millisecond. Not stored. */
  tsSubMs?: number;
  origin: Origin;
  seq?: number;
  node?: string;
  session?: string | null;
  incarnation?: string;
  stream?: string;
  sequence?: string;
  conn?: string;
  principal?: string;
  req?: string;
  /** The MCP protocol revision of the request or session (`MCP-Protocol-Version`), e.g. `2025-11-25`. */
  protocolVersion?: string;
  // lifecycle
  via?: string;
  reason?: string;
  aspect?: string;
  logEvicted?: boolean;
  /** `stream.closed` reason `poll`: the `retry` the client was told to wait before resuming. */
  retryMs?: number;
  // events
  eventId?: string;
  rpcKind?: string;
  rpcId?: string;
  method?: string;
  attached?: boolean;
  /** An event with an id and empty data, sent first so that the client can resume (2025-11-25). */
  priming?: boolean;
  ofStream?: string;
  oldestRetained?: string;
  // upgrade
  lastEventId?: string | null;
  newStream?: string;
  decision?: Decision;
  status?: number;
  replayed?: number;
  reemitted?: number;
  cancelled?: number;
  firstReplayed?: string;
  replayedIds?: string[];
  newSession?: string;
  resetSignalled?: boolean;
  // server-to-client requests
  requestId?: string;
  newRequestId?: string;
  // client calls
  tool?: string;
  argsHash?: string;
  executed?: boolean;
  // proxy access records
  httpMethod?: string;
  path?: string;
  reqHeaders?: Record<string, string>;
  respHeaders?: Record<string, string>;
  sseEventIds?: string[];
  durationMs?: number;
  bytes?: number;
  /** Unknown fields, kept verbatim (not used by any rule). */
  extra?: Record<string, unknown>;
}

/** The first revision without sessions or `Last-Event-ID` resumption (SEP-2567, SEP-2575). */
export const STATELESS_REVISION = '2026-07-28';

/**
 * Revisions are dates (YYYY-MM-DD): they compare as strings. Anything else ("latest", "n/a") names no
 * revision, and would sort after every date: it is not the stateless era.
 */
export function isStatelessEra(version: string | undefined): boolean {
  return version !== undefined && REVISION_DATE.test(version) && version >= STATELESS_REVISION;
}

/** A revision's shape, as the engine's revisionOf tests it (the engine imports nothing of model/); the SQL of queries/rules/*-in-stateless-era.sql tests it with GLOB. */
const REVISION_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Where a line's text sits in its (uncompressed) file: `bytes` bytes from `offset`. */
export interface LineBytes {
  offset: number;
  bytes: number;
}

/** Provenance: every stored row points back to one input line. */
export interface LineRef {
  file: string;
  line: number;
  /** The record cited, where it is known (a CitedLine): a line may hold thousands. */
  readonly record?: number;
}

/** A line of more records than this is an export batch (an OTLP export request): it is quoted by the record cited. */
export const BATCH_LINE_RECORDS = 16;

/** The quote of a batch line's cited record, as stored: it says what it is, since the text is not in the file as such. */
export function recordQuote(position: number, total: number, fields: Record<string, unknown>): string {
  return `${RECORD_QUOTE} ${position} of ${total} on this line, as read) ${JSON.stringify(fields)}`;
}

/** Whether a quote is one record of a batch line, not a whole line (a record line is JSON: it never starts so). */
export function isRecordQuote(text: string): boolean {
  return text.startsWith(RECORD_QUOTE);
}

const RECORD_QUOTE = '(record';

/**
 * A line cited as evidence, and which of its records was cited: a line may hold thousands (an OTLP
 * export request), and its summary shows the one cited. The record is not part of the line's identity:
 * reports give file:line, and a CitedLine equals, field for field (and as JSON), the LineRef it is.
 */
export class CitedLine implements LineRef {
  readonly #record: number;

  constructor(
    readonly file: string,
    readonly line: number,
    record: number,
  ) {
    this.#record = record;
  }

  get record(): number {
    return this.#record;
  }
}

/**
 * A record read only if an earlier line made its stream a stateless request's: one with no session and no
 * protocol version, which inherits its stream's (store/stateless-streams.ts). Which lines came earlier is
 * the store's to know, not the thread's that normalized this one. Otherwise the line is rejected for its
 * missing session (missingField(kind, 'session')); `otherwise`: why even so, where it lacks another field.
 */
export interface InheritingRecord {
  /** Its place among the line's records. */
  index: number;
  /** Its place among the line's specs, from 1 (an OTLP export request holds many). */
  spec: number;
  otherwise?: string;
}

/** Why a record of this kind is rejected without this field (as log-format.md names it). */
export function missingField(kind: string, field: string): string {
  return `${kind}: missing required field ${field}`;
}

/**
 * A line with inheriting records: what the line is once they are settled. `prefix`: the adapter's name, which
 * a rejection's reason starts with; `bad`, `firstBad`: its specs rejected whatever the store knows.
 */
export interface LineInheritance {
  specs: number;
  prefix?: string;
  records: InheritingRecord[];
  bad: number;
  firstBad?: { at: number; reason: string };
}

/** A rejected line keeps this much of its (redacted) text, for `query rejected`. */
export const REJECTED_PREVIEW = 4096;

/** Why a line of several records (an OTLP export request), `bad` of them unreadable, is a rejected line; its other `kept` records are read. */
export function partlyRejected(prefix: string, firstBad: { at: number; reason: string }, specs: number, bad: number, kept: number): string {
  const more = bad > 1 ? ` (and ${bad - 1} more)` : '';
  return `${prefix}: record ${firstBad.at} of ${specs}: ${firstBad.reason}${more}; its other ${kept} records were read`;
}

/**
 * What one input line became; `redacted` is the line to store instead of the raw one, when it held a credential.
 * `rejected`: a line of several records (an OTLP export request) some of which could not be read, why; the
 * line is a rejected line, and its other records are read. `inheriting`: records the store settles.
 */
export type LineOutcome =
  /** `inner`: the record's own text where an envelope carried it (a CRI line's, a shipper's `message`): what a repeat is known by. */
  | { type: 'records'; records: NormalizedRecord[]; format: string; redacted?: string; rejected?: string; inheriting?: LineInheritance; inner?: string }
  /** `hint`: what the line almost was (a kind in `message`, a `Kind` key), for the message of a file with no record line. */
  | { type: 'ignored'; hint?: string }
  | { type: 'rejected'; reason: string; redacted?: string };

/**
 * One input line as the store receives it: normalized (records, with the line
 * to quote as evidence, already redacted), ignored, or rejected (why, and its
 * redacted head). The unit the pipeline hands from normalize to store, in
 * batches, across a worker thread when it runs one.
 */
export type NormalizedLine =
  /** The line to quote: `raw` (its text, redacted where it held a credential), or only where it is (`at`) when the store keeps no copy. */
  /** `key`: its bytes as a number (normalize/repeated-lines.ts), where the store is to read it once if it comes again. */
  | {
      line: number; type: 'records'; records: NormalizedRecord[]; format: string; raw?: string; at?: LineBytes; rejected?: { reason: string; text: string };
      inheriting?: LineInheritance;
      key?: number;
    }
  | { line: number; type: 'ignored'; hint?: string }
  | { line: number; type: 'rejected'; reason: string; text: string };

/**
 * A row of the records table as stored (store/schema.ts): the one declaration of its
 * columns. Readers pick the columns they select (the fold, the engine replay).
 */
export interface RecordRow {
  id: number;
  source_id: number;
  line: number;
  ts_ms: number;
  kind: string;
  origin: Origin;
  shadowed: number;
  seq: number | null;
  node: string | null;
  session: string | null;
  incarnation: string | null;
  stream: string | null;
  sequence: string | null;
  conn: string | null;
  principal: string | null;
  req: string | null;
  via: string | null;
  reason: string | null;
  aspect: string | null;
  log_evicted: number | null;
  event_id: string | null;
  rpc_kind: string | null;
  rpc_id: string | null;
  method: string | null;
  attached: number | null;
  of_stream: string | null;
  oldest_retained: string | null;
  last_event_id: string | null;
  new_stream: string | null;
  decision: string | null;
  status: number | null;
  replayed: number | null;
  reemitted: number | null;
  cancelled: number | null;
  first_replayed: string | null;
  replayed_ids: string | null;
  new_session: string | null;
  reset_signalled: number | null;
  request_id: string | null;
  new_request_id: string | null;
  tool: string | null;
  args_hash: string | null;
  executed: number | null;
  http_method: string | null;
  path: string | null;
  req_headers: string | null;
  resp_headers: string | null;
  sse_event_ids: string | null;
  duration_ms: number | null;
  bytes: number | null;
  extra: string | null;
  protocol_version: string | null;
  retry_ms: number | null;
  priming: number | null;
  /** The line's text; null where it is re-read from its file at line_offset (store/line-text.ts), and on a line's records after its first. */
  raw: string | null;
  line_offset: number | null;
  line_bytes: number | null;
}
