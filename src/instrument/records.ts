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
  via?: 'get' | 'post';
  reason?: string;
  event_id?: string;
  rpc_kind?: RpcKind;
  rpc_id?: string | number;
  method?: string;
  attached?: boolean;
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
}

/** One written line. */
export interface ResumptionRecord extends RecordFields {
  /** RFC 3339, millisecond precision, UTC. */
  ts: string;
  /** Per-recorder counter: orders records that share a millisecond. */
  seq: number;
  node: string;
}
