// The engine's own vocabulary. It imports nothing outside src/engine/, so the
// record type is declared here, loosely enough that the analyzer's
// NormalizedRecord (src/model/record.ts) is assignable to it as is.

/** The fields of a log record the engine reads (see shared/spec/log-format.md). */
export interface EngineRecord {
  kind: string;
  tsMs: number;
  session?: string | null;
  incarnation?: string;
  node?: string;
  stream?: string;
  sequence?: string;
  conn?: string;
  principal?: string;
  via?: string;
  aspect?: string;
  logEvicted?: boolean;
  eventId?: string | number;
  rpcKind?: string;
  rpcId?: string | number;
  method?: string;
  attached?: boolean;
  oldestRetained?: string | number;
  lastEventId?: string | number | null;
  newStream?: string;
  decision?: string;
  status?: number;
  requestId?: string | number;
  newRequestId?: string | number;
}

/** One reconnect (or initialize) as the server receives it. */
export interface EngineRequest {
  /** The `Mcp-Session-Id` header, null when absent (an empty header counts as absent). */
  sessionId: string | null;
  /** The `Last-Event-ID` header, null when absent; 1204 and "1204" are the same id. */
  lastEventId: string | number | null;
  /** When the request arrived, epoch ms: the engine has no clock of its own. */
  tsMs: number;
  /** The node answering; cross-node checks apply only when both sides are known. */
  node?: string;
  conn?: string;
  /** Who is asking; checked against the session's owner when both are known. */
  principal?: string;
  /** The request is an `initialize` POST, which may mint a session. */
  isInitialize?: boolean;
  /** The caller knows `lastEventId` belongs to another session (the analyzer can tell). */
  foreignSession?: boolean;
  /**
   * The caller knows the answering node shares the session store with the node that created
   * the session (the analyzer can tell when a node continues another node's events).
   */
  sharedStore?: boolean;
}

export type DecisionClass = 'resume' | 'attach' | 'fresh' | 'reject';

/** Why a resumption (or attach) cannot be honoured; each failed check is named. */
export type CheckCode =
  | 'unknown_event_id'
  | 'foreign_event_id'
  | 'position_evicted'
  | 'state_changed_in_window'
  | 'answered_request_in_window'
  | 'prior_writer_unfenceable';

/** The machine-readable `reason` of a decision. */
export type ReasonCode =
  | 'event_id_without_session'
  | 'session_required'
  | 'session_not_found'
  | 'principal_mismatch'
  | 'resumption_unavailable'
  | 'initialize'
  | 'session_resumption'
  | 'stream_resumption';

export interface EngineDecision {
  decision: DecisionClass;
  status: number;
  reason: ReasonCode;
  /** Event ids to replay, in emission order. */
  replay: string[];
  /** Pending server-to-client request ids to re-emit on the new stream. */
  reemit: string[];
  /** Pending server-to-client request ids to fail explicitly instead. */
  cancel: string[];
  /** Stream ids whose writers must be fenced before the new stream is attached. */
  fence: string[];
  /** A new session id must be minted (initialize, or a reset). */
  newSession: boolean;
  /** The client must be told of a discontinuity (a reset). */
  resetSignalled: boolean;
  /** The failed checks; for a reject before any check, the reason code itself. */
  checks: string[];
}
