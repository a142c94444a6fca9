import type { EmittedEvent, EventLog } from './event-log.js';

export type { EmittedEvent };

// The engine's own vocabulary. It imports nothing outside src/engine/, so the
// record type is declared here, loosely enough that the analyzer's
// NormalizedRecord (src/model/record.ts) is assignable to it as is.

/** The fields of a log record the engine reads (see the README, "Input"). */
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
  /** A priming event (2025-11-25): an id with empty data, sent first so that a client can resume before any message. */
  priming?: boolean;
  oldestRetained?: string | number;
  lastEventId?: string | number | null;
  newStream?: string;
  decision?: string;
  status?: number;
  requestId?: string | number;
  newRequestId?: string | number;
  /** The MCP protocol revision of the record (or its request); a session's records inherit the session's (EngineState.protocolVersion). */
  protocolVersion?: string;
  /** `stream.closed`: why (`client`, `server`, `error`, `poll`, ...). */
  reason?: string;
  /** `call`: the tool a `tools/call` named. */
  tool?: string;
  /** `call`: whether the server ran it (absent: a 2xx status says it did). */
  executed?: boolean;
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
  /**
   * The request's `MCP-Protocol-Version`: under the policy's `protocolVersion: 'as-logged'`
   * it picks the revision whose rules decide, before the session's own.
   */
  protocolVersion?: string;
  /**
   * `GET` or `POST`. Absent: POST for an initialize, else GET (every resumption is a GET since
   * 2025-11-25, and so is the standalone stream). It matters only where a revision has no GET
   * stream: there a GET is refused, a POST served on its own.
   */
  httpMethod?: string;
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
  | 'stream_resumption'
  /** A GET where the revision has no GET stream (2026-07-28): 405. */
  | 'method_not_allowed'
  /** An `initialize` where the revision has no handshake (2026-07-28): 400. */
  | 'initialize_unsupported'
  /** Served on its own where the revision has no sessions: headers ignored, nothing minted or replayed. */
  | 'stateless_request';

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
  /**
   * Stream ids whose writers must be fenced before the new stream is attached. Listed when first read: a session
   * whose streams are never closed meets every earlier stream at each resumption (engine/live-writers.ts).
   */
  fence: string[];
  /** A new session id must be minted (initialize, or a reset). */
  newSession: boolean;
  /** The client must be told of a discontinuity (a reset). */
  resetSignalled: boolean;
  /** The failed checks; for a reject before any check, the reason code itself. */
  checks: string[];
}

// What the engine knows about one session id (state.ts builds it). Data (the
// events' log, event-log.ts, the one class), so that the modules that read it
// (lineage, requests, retention, decide) need only these types, not state.ts's
// functions.

/** A lineage's live writers (live-writers.ts). */
export interface LiveWriters {
  members: Set<StreamInfo>;
  /** The members in the order the incarnation first saw them. */
  inOrder: StreamInfo[];
  /** Members on each known node: how many. */
  nodes: Map<string, number>;
}

export interface StreamInfo {
  id: string;
  via?: string;
  node?: string;
  conn?: string;
  principal?: string;
  sequence?: string;
  openedPos: number;
  /** Where the stream came among its incarnation's streams when first seen: a lineage keeps its members in that order. */
  seen: number;
  closed: boolean;
  fenced: boolean;
  superseded: boolean;
  /** The stream this one continues (resumption, attach or shared `sequence`): its lineage parent. */
  continues?: string;
  /** What first ended this body since it opened: a close (with its reason), a fence, or a supersession. */
  end?: StreamEnd;
  /** Position of the accepted upgrade (resume or attach) that opened this stream. */
  openedBy?: number;
  /** That upgrade was a resumption from a priming event that opened its lane (see Incarnation.primingOpeners). */
  resumedFromPriming?: true;
}

export interface StreamEnd {
  how: 'closed' | 'fenced' | 'superseded';
  pos: number;
  /** The close's `reason`, as logged (`poll`: a server-initiated disconnect that a client resumes). */
  reason?: string;
}

/**
 * A request the client POSTed (a `call` record), with what became of its response: the
 * engine keeps them so that a what-if can ask which calls a broken stream would have lost.
 */
export interface ClientCall {
  rpcId: string;
  method?: string;
  tool?: string;
  /** Position of the `call` record; undefined when only its response shows the request. */
  pos?: number;
  /** When the call was logged (without a call record, when its response was). */
  tsMs: number;
  /** The server ran it: `executed`, else a 2xx status; without a call record, its response says it did. */
  executed: boolean;
  response?: CallResponse;
}

export interface CallResponse {
  eventId: string;
  /** Position of the `event.sent` that carried it. */
  pos: number;
  stream?: string;
  /** Written attached on the response body the request opened, while that body was live: delivered with no resumption. */
  deliveredLive: boolean;
  /** Why it was not: what ended the body first, or `unattached` (no body was live to write it to). */
  broke?: StreamEnd | { how: 'unattached'; pos: number };
  /** Position of the accepted upgrade that brought it to the client: the resumption that replayed it, or that opened the stream it came on. */
  rescuedBy?: number;
  /**
   * That rescue presented a priming event that opened its lane: the client held no other id of it,
   * so a revision without priming events could not have asked for the rescue at all.
   */
  rescueNeedsPriming?: true;
}


export interface ServerRequest {
  id: string;
  method?: string;
  stream?: string;
  eventId?: string;
  /** False while only lifecycle records were seen (clock skew can log an answer first). */
  sent: boolean;
  sentPos?: number;
  answered: boolean;
  cancelled: boolean;
  reissued: boolean;
  timedOut: boolean;
}

export interface SessionEnd {
  kind: 'terminated' | 'evicted';
  tsMs: number;
  pos: number;
}

/** One life of a session id: each `session.created` starts one. */
export interface Incarnation {
  /** False for records seen before any `session.created` (the log starts mid-session). */
  created: boolean;
  nonce?: string;
  createdTsMs?: number;
  node?: string;
  /** Principal of `session.created`, else the first principal logged for it. */
  owner?: string;
  ended?: SessionEnd;
  /** The event log was dropped with the session (`session.evicted`, `log_evicted` not false). */
  logEvicted: boolean;
  streams: Map<string, StreamInfo>;
  /** `sequence` value -> first stream seen with it: the root its lineage hangs on. */
  sequences: Map<string, string>;
  /** Lineage root -> the lineage's streams, in the order the incarnation first saw them (lineage.ts keeps it). */
  lineages: Map<string, StreamInfo[]>;
  /**
   * Lineage root -> its streams not superseded since they (re)opened (lineage.ts keeps it): of the standalone
   * lineages, all an attach has left to supersede. Kept per lineage so that an attach reads the standalone
   * ones only, not every POST stream a long polling session leaves behind.
   */
  unsuperseded: Map<string, Set<StreamInfo>>;
  /** The lineage roots opened by a GET: the standalone lineages (lineage.ts keeps it). */
  standaloneRoots: Set<string>;
  /**
   * Lineage root -> its live writers: streams neither closed nor fenced since they (re)opened (live-writers.ts keeps
   * them; a lineage with none has no entry). A resumption's are its lineage's, read here, not filtered from every
   * live stream, which a server leaving streams open makes many.
   */
  live: Map<string, LiveWriters>;
  /**
   * Lane name (a sequence or stream id) -> the lane it joined (lanes.ts): a resumption's new stream joins the
   * resumed stream's lane. Made at the first join.
   */
  laneParents?: Map<string, string>;
  /** The events emitted, each lane's in order (event-log.ts). */
  events: EventLog;
  stateChanges: { pos: number; tsMs: number; aspect?: string }[];
  trims: LoggedTrim[];
  /** The trims, indexed by what they take (trim-index.ts keeps it): a resume reads a bound or two, not every trim. */
  trimIndex: TrimIndex;
  requests: Map<string, ServerRequest>;
  /**
   * The requests sent and not resolved since, in the order sent (pending-requests.ts keeps it): an attach reads
   * these, not every request of the session, which made a session attaching thousands of times its length squared.
   */
  sentUnresolved: Set<ServerRequest>;
  /** Client requests in the order logged (see ClientCall). */
  calls: ClientCall[];
  /** rpc id -> the latest of `calls` with that id: where its response goes. */
  callsByRpc: Map<string, ClientCall>;
  /**
   * lane -> responses written there for replay and not yet brought to the client, in lane order: what
   * the next resumption of that lane can rescue. Kept apart so that a resumption reads its lane's
   * waiting responses, not every call of the session (which made a long polling session quadratic).
   */
  awaitingRescue: Map<string, AwaitingResponse[]>;
  /**
   * Priming events that were the first event of their lane: a resumption from one needed it, since
   * before it the client had no id of that lane (made when the first is seen: most logs have none).
   */
  primingOpeners?: Set<string>;
  /** Replaced by a newer incarnation and not written to since: its empty collections are shared, read-only (set-aside.ts). */
  setAside?: true;
}

/** A `buffer.trimmed`: of one stream, or (no stream) of the whole session. */
export interface LoggedTrim {
  stream?: string;
  oldestRetained: string;
  pos: number;
  tsMs: number;
}

// The trim index (trim-index.ts keeps it).

/** What a set of trims takes. */
export interface TrimBound {
  /** Every event emitted before this position (-1: none). */
  beforePos: number;
  /** oldest_retained ids made of digits, not emitted yet -> how many of the trims name each. */
  unplacedDigits: Map<string, number>;
  /** The highest of unplacedDigits. */
  highestUnplaced: bigint | undefined;
}

/** One stream's trims, and the lane they cover now (lanes.ts: the root its sequence, else its id, joined). */
export interface StreamTrimBound extends TrimBound {
  lane: string;
}

/** The trimmed streams of one lane, and their bounds merged. */
export interface LaneTrimBounds {
  members: Set<StreamTrimBound>;
  merged: TrimBound;
}

export interface TrimIndex {
  /** Trims without a stream. */
  session: TrimBound;
  byStream: Map<string, StreamTrimBound>;
  byLane: Map<string, LaneTrimBounds>;
  /** Bounds waiting for an oldest_retained id to be emitted, by that id. */
  unplaced: Map<string, TrimBound[]>;
}

export interface AwaitingResponse {
  /** Position of the event that carried it: a lane's order is emission order, which a joined lane keeps. */
  pos: number;
  response: CallResponse;
}

export interface EngineState {
  sessionId?: string;
  /**
   * The session's protocol version, if any record logged one: its creation's where that revision has sessions
   * (the negotiated one); else the first a record other than its creation carried, where that revision has
   * sessions; else its creation's (state.ts, noteVersion).
   */
  protocolVersion?: string;
  /** Set once `protocolVersion` is settled (a creation's or a request's revision with sessions): then it no longer changes. */
  protocolVersionFromRequest?: true;
  /** Position of the next observed record: the engine's notion of log order. */
  nextPos: number;
  incarnations: Incarnation[];
  /** Past a few incarnations: event id -> the incarnation that emitted it, null where several did (emitters.ts). */
  emitters?: Map<string, Incarnation | null>;
}
