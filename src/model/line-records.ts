import type { LineRef } from './record.js';

// The read model of an evidence line's records: what the store reads
// (store/line-records.ts) and the text and markdown reports summarize
// (render/evidence-summary.ts), without render touching the database.

/** The stored columns of a record that a summary reads (a row of `records`). */
export interface SummaryRecord {
  kind: string;
  ts_ms: number;
  origin?: string | null;
  session?: string | null;
  stream?: string | null;
  node?: string | null;
  principal?: string | null;
  via?: string | null;
  reason?: string | null;
  aspect?: string | null;
  log_evicted?: number | null;
  event_id?: string | null;
  rpc_kind?: string | null;
  rpc_id?: string | null;
  method?: string | null;
  attached?: number | null;
  priming?: number | null;
  of_stream?: string | null;
  oldest_retained?: string | null;
  last_event_id?: string | null;
  new_stream?: string | null;
  decision?: string | null;
  status?: number | null;
  replayed?: number | null;
  reemitted?: number | null;
  cancelled?: number | null;
  first_replayed?: string | null;
  new_session?: string | null;
  reset_signalled?: number | null;
  request_id?: string | null;
  new_request_id?: string | null;
  tool?: string | null;
  executed?: number | null;
  http_method?: string | null;
  path?: string | null;
  retry_ms?: number | null;
}

/**
 * The records one log line became, in log order (a proxy or OTLP line may hold several). A line of
 * many (an OTLP export request of thousands) lists its first few, and counts the rest by kind.
 */
export interface LineOfRecords {
  records: readonly SummaryRecord[];
  /** Records past those listed, counted by kind in the order each kind first appears. */
  more?: ReadonlyMap<string, number>;
}

/** The records of a log line, for its summary; undefined when unknown. */
export type LineRecords = (ref: LineRef) => LineOfRecords | undefined;
