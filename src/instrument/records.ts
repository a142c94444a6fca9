import type { Decision, RecordKind } from '../model/record.js';

// The wire shape of what the instrumentation writes: one object per NDJSON
// line, field names exactly as in the log format (README, "Input"; snake_case).

export type RpcKind = 'request' | 'response' | 'notification';

/** The fields a caller supplies; the recorder adds `ts`, `seq` and `node`. */
export interface RecordFields {
  kind: RecordKind;
  session?: string | null;
  incarnation?: string;
  stream?: string;
  /** The SDK's own stream id, which it reuses across a resumption. */
  sequence?: string;
  conn?: string;
  principal?: string;
  /**
   * The MCP revision of the request (`MCP-Protocol-Version`); on an `initialize` POST, the one the server
   * negotiated (read from its result) on the session's records, and the one asked for on the minting `upgrade`.
   */
  protocol_version?: string;
  via?: 'get' | 'post';
  reason?: string;
  /** `stream.closed` reason `poll`: the `retry` the client was told to wait before resuming. */
  retry_ms?: number;
  event_id?: string;
  rpc_kind?: RpcKind;
  rpc_id?: string | number;
  method?: string;
  attached?: boolean;
  /** An event with an id and empty data, sent first so that the client can resume (2025-11-25). */
  priming?: boolean;
  last_event_id?: string | null;
  new_stream?: string;
  decision?: Decision;
  status?: number;
  replayed?: number;
  reemitted?: number;
  cancelled?: number;
  first_replayed?: string;
  replayed_ids?: string[];
  new_session?: string;
  request_id?: string | number;
  tool?: string;
  args_hash?: string;
  // `http` records: a request the server answered before any session existed.
  path?: string;
  req_headers?: Record<string, string>;
  resp_headers?: Record<string, string>;
  rpc_method?: string;
}

/** One written line. */
export interface ResumptionRecord extends RecordFields {
  /** RFC 3339, millisecond precision, UTC. */
  ts: string;
  /** Per-recorder counter: orders records that share a millisecond. */
  seq: number;
  node: string;
}

/** The `msg` of a note written in place of a record the analyzer would reject. */
export const NOT_A_RECORD = 'resumescope: not a record';

/** Such a note: the record's fields without `kind` (an ignored line to the analyzer), and why. */
export interface ResumptionNote extends Omit<ResumptionRecord, 'kind'> {
  kind?: never;
  msg: typeof NOT_A_RECORD;
  record_kind: RecordKind;
  why: string;
}

/** The `msg` of the note a stream sink writes once it drains, counting the records it dropped while it did not. */
export const RECORDS_DROPPED = 'resumescope: records dropped';

/**
 * That note: an ignored line to the analyzer (no `kind`; its `msg` names no kind), written where the
 * dropped records would have been. `ts` is when writing resumed; `since` the `ts` of the first dropped.
 */
export interface ResumptionDropNote {
  ts: string;
  msg: typeof RECORDS_DROPPED;
  dropped: number;
  since: string;
  first_seq: number;
  last_seq: number;
  node: string;
}

/** What the recorder writes: one line. */
export type LoggedLine = ResumptionRecord | ResumptionNote;
