import { AsyncLocalStorage } from 'node:async_hooks';
import type { Recorder } from './recorder.js';
import type { RecordFields } from './records.js';
import type { SseBody } from './tracker.js';
import { negotiatedProtocolVersion } from './jsonrpc.js';

// The HTTP request being handled, visible to the event-store wrapper through
// async context: the SDK calls the store from inside `handleRequest` (and from
// tool handlers it started there), with no session id in the call.

export interface ReplayFacts {
  lastEventId: string;
  /** The SDK stream id the store resolved `lastEventId` to ('' when it resolved none). */
  sequence?: string;
  replayedIds: string[];
  /** Set when the store threw. */
  error?: string;
}

export interface RequestContext {
  readonly recorder: Recorder;
  readonly httpMethod: string;
  /** The `Mcp-Session-Id` header as received. */
  readonly presentedSession: string | null;
  readonly lastEventId: string | null;
  /** `InstrumentRequestsOptions.sharedSessionStore`. */
  readonly sharedSessionStore: boolean;
  readonly conn: string;
  readonly principal?: string;
  /** `MCP-Protocol-Version` as received, else the revision an `initialize` in the body asks for. */
  readonly protocolVersion?: string;
  /** The id of the `initialize` request the body carries, if any. */
  readonly initializeId?: string | number;
  /** The revision the server answered that `initialize` with, once its result is seen. */
  negotiatedVersion?: string;
  /**
   * Set while the records of an `initialize` POST that minted a session wait for its result: the
   * session's revision is the one negotiated, which only the result says. Runs them (once).
   */
  releaseHead?: () => void;
  /** The request path, without its query (which may carry a token). */
  readonly path: string;
  /** The request headers the log may keep (never a credential). */
  readonly loggableHeaders: Record<string, string>;
  /** The JSON-RPC request ids this POST carries, and those the server has since stored a response for. */
  readonly requestIds: ReadonlySet<string | number>;
  readonly answeredIds: Set<string | number>;
  /** The presented session, or the one minted by this request once its response head is out. */
  session?: string;
  headWritten: boolean;
  /** Records that need the response head (the session it mints, the body it opens) before they can be written. */
  readonly deferred: Array<() => void>;
  /** The SDK stream id this response serves, once known. */
  sequence?: string;
  body?: SseBody;
  replay?: ReplayFacts;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

/** The request in flight for this recorder, if any. */
export function currentRequest(recorder: Recorder): RequestContext | undefined {
  const ctx = requestContext.getStore();
  return ctx?.recorder === recorder ? ctx : undefined;
}

/** Runs `write` now, or once the request's response head is out if it is not yet. */
export function whenHeadWritten(ctx: RequestContext | undefined, write: () => void): void {
  if (ctx !== undefined && !ctx.headWritten) ctx.deferred.push(write);
  else write();
}

/**
 * The `protocol_version` field of a record written for this request, where it names one: the revision an
 * `initialize` negotiated, once its result is seen, else the request's (its header, or what the initialize asked for).
 */
export function versionOf(ctx: RequestContext | undefined): Pick<RecordFields, 'protocol_version'> {
  const version = ctx?.negotiatedVersion ?? ctx?.protocolVersion;
  return version === undefined ? {} : { protocol_version: version };
}

/** Reads the negotiated revision from `message` where it answers this request's `initialize`, and lets its records go. */
export function noteInitializeResult(ctx: RequestContext | undefined, message: unknown): boolean {
  if (ctx?.initializeId === undefined || ctx.negotiatedVersion !== undefined) return false;
  const version = negotiatedProtocolVersion(message, ctx.initializeId);
  if (version === undefined) return false;
  ctx.negotiatedVersion = version;
  // Called from the server's own writes and event store: the log must never break the server it observes.
  try {
    ctx.releaseHead?.();
  } catch (err) {
    process.emitWarning(`resumescope instrumentation: ${String(err)}`);
  }
  return true;
}
