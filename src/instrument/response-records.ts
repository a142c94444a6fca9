import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { versionOf, type RequestContext } from './request-context.js';
import { replayFields } from './event-store.js';
import { jsonRpcErrorMessage } from './node-http.js';
import { rpcFacts, rpcMessages } from './jsonrpc.js';
import { isStatelessEra } from '../model/record.js';
import type { RecordFields } from './records.js';
import { SDK_STANDALONE_STREAM_ID, trackerOf, type CloseReason, type SseBody } from './tracker.js';

// What one HTTP exchange with a StreamableHTTPServerTransport means in the
// log, decided when its response head goes out (status and headers known)
// and when the response closes.

export interface ResponseHead {
  status: number;
  /** The `mcp-session-id` response header. */
  sessionHeader: string | undefined;
  eventStream: boolean;
  contentType?: string;
}

export interface Exchange {
  ctx: RequestContext;
  res: ServerResponse;
  /** The parsed POST body, where it could be read. */
  body: unknown;
  head?: ResponseHead;
  /** The start of an error response's body, once it is written. */
  errorBody?: () => string;
}

const ok = (status: number): boolean => status >= 200 && status < 300;

export function onResponseHead(ex: Exchange, head: ResponseHead): void {
  ex.head = head;
  const { ctx } = ex;
  const minted = mintedBy(ctx, head);
  // Known live from now: a request presenting it before its records are out is no second mint.
  if (minted !== undefined) trackerOf(ctx.recorder).startSession(minted);
  if (awaitsNegotiation(ex, minted)) {
    // Its records wait for the initialize's result, which names the revision the session speaks.
    ctx.releaseHead = () => {
      ctx.releaseHead = undefined;
      onPostHead(ex, head, minted);
      ctx.headWritten = true;
      flushDeferred(ctx);
    };
    return;
  }
  if (ctx.httpMethod === 'POST') onPostHead(ex, head, minted);
  else if (ctx.httpMethod === 'GET' && ok(head.status)) onAcceptedGet(ex, head);
  else if (ctx.httpMethod === 'DELETE' && ok(head.status) && ctx.presentedSession !== null) {
    if (trackerOf(ctx.recorder).endSession(ctx.presentedSession)) {
      ctx.recorder.record({ kind: 'session.terminated', session: ctx.presentedSession, reason: 'client_delete', ...versionOf(ctx) });
    }
  }
  ctx.headWritten = true;
  flushDeferred(ctx);
}

export function onResponseClose(ex: Exchange): void {
  const { ctx, res, head } = ex;
  // No result seen (an error, a body not read): the records go with the revision the request asked for.
  ctx.releaseHead?.();
  ctx.body?.close(res.writableEnded ? serverCloseReason(ctx, ctx.body) : 'client');
  if (ctx.httpMethod === 'GET' && (head === undefined || !ok(head.status))) logRejectedGet(ex);
  ctx.headWritten = true;
  flushDeferred(ctx);
}

/**
 * The session a POST's 2xx answer mints: the `mcp-session-id` it carries where the request presented
 * none, presented another, or presented one this log does not know as live (ended, or never created
 * here, unless the nodes share a session store). A server that answers an unknown or ended session id by minting a session, under that id or a
 * new one, instead of 404 forks the client's session (rules.md `silent-fork`, seed 004): only the mint
 * in the log shows it.
 */
function mintedBy(ctx: RequestContext, head: ResponseHead): string | undefined {
  const answered = head.sessionHeader;
  if (ctx.httpMethod !== 'POST' || !ok(head.status) || answered === undefined) return undefined;
  const presented = ctx.presentedSession;
  if (presented === null || answered !== presented) return answered;
  return trackerOf(ctx.recorder).knowsLive(presented, ctx.sharedSessionStore) ? undefined : presented;
}

/**
 * An initialize POST that minted a session, its answer not yet seen: the session speaks the revision the
 * server negotiated, which may not be the one the client asked for (2025-11-25 lifecycle, Version
 * Negotiation), and only the result of the initialize says it.
 */
function awaitsNegotiation(ex: Exchange, minted: string | undefined): boolean {
  const { ctx } = ex;
  return ctx.initializeId !== undefined && ctx.negotiatedVersion === undefined && minted !== undefined;
}

/**
 * Why the server ended a body: `poll` (2025-11-25) when it ended the
 * connection but not the stream, the client expected to resume it: a POST
 * body ended before the response to every request it carries was stored, or
 * a body that told the client its `retry`; unless the session itself ended
 * or a resumption took the stream over.
 * Stored responses are seen only through an instrumented event store.
 */
function serverCloseReason(ctx: RequestContext, body: SseBody): CloseReason {
  const tracker = trackerOf(ctx.recorder);
  if (tracker.hasEnded(body.session) || !tracker.eventStoreSeen || body.takenOver === true) return 'server';
  const unanswered = [...ctx.requestIds].some((id) => !ctx.answeredIds.has(id));
  if (body.via === 'post' && unanswered) return 'poll';
  if (body.via === 'get' && body.retryMs !== undefined) return 'poll';
  return 'server';
}

function onPostHead(ex: Exchange, head: ResponseHead, minted: string | undefined): void {
  const { ctx } = ex;
  const recorder = ctx.recorder;
  // A minted session is the one that answers, whatever id the request presented.
  ctx.session = minted ?? ctx.presentedSession ?? undefined;
  // No session, presented or minted: answered before any existed (a 403 from DNS-rebinding
  // protection, a 400), or a 2026-07-28 request, which has none by design.
  if (ctx.session === undefined && !isStatelessEra(ctx.protocolVersion)) return logSessionlessPost(ex, head);
  const session = ctx.session ?? null;
  const who = requestIdentity(ctx);
  if (head.eventStream && ctx.session !== undefined) {
    ctx.body = openBody(ex, 'post', ctx.session);
    if (ctx.sequence !== undefined) trackerOf(recorder).bind(ctx.body, ctx.sequence);
  }
  if (minted !== undefined) logMint(ex, head, minted);
  if (ctx.body !== undefined) recorder.record({ kind: 'stream.opened', session, stream: ctx.body.stream, via: 'post', ...who });
  for (const message of rpcMessages(ex.body)) {
    const rpc = rpcFacts(message);
    if (rpc.kind === 'request' && rpc.id !== undefined) {
      recorder.record({
        kind: 'call',
        ...(session !== null && { session }),
        rpc_id: rpc.id,
        method: rpc.method,
        ...(rpc.tool !== undefined && { tool: rpc.tool, args_hash: rpc.argsHash }),
        status: head.status,
        ...who,
      });
    } else if (rpc.kind === 'response' && rpc.id !== undefined && session !== null) {
      recorder.record({ kind: 'request.answered', session, request_id: rpc.id, status: head.status, ...who });
    }
  }
}

/**
 * `session.created` and the `upgrade` (fresh) of a session a POST minted. An initialize's creation comes
 * first, the session's own start. A re-mint's comes after the upgrade that presented the unknown or ended
 * id: the analyzer judges that request by what the log knew of the id before it (`silent-fork`).
 */
function logMint(ex: Exchange, head: ResponseHead, minted: string): void {
  const { ctx } = ex;
  const created = (): void => {
    ctx.recorder.record({ kind: 'session.created', session: minted, incarnation: randomUUID(), ...principalOf(ctx), ...versionOf(ctx) });
  };
  if (ctx.presentedSession === null) created();
  ctx.recorder.record({
    kind: 'upgrade',
    session: ctx.presentedSession,
    last_event_id: ctx.lastEventId,
    decision: 'fresh',
    status: head.status,
    new_session: minted,
    ...(ctx.body !== undefined && { new_stream: ctx.body.stream }),
    ...requestIdentity(ctx),
    // The request's own: what an initialize asked for. Its session's records carry the revision negotiated.
    ...(ctx.protocolVersion !== undefined && { protocol_version: ctx.protocolVersion }),
  });
  if (ctx.presentedSession !== null) created();
}

/**
 * A POST answered while no session exists is what a proxy would log: an
 * `http` record (method, path, status, the headers that matter, what the body
 * carried), which the analyzer reads without inventing a session.
 */
function logSessionlessPost(ex: Exchange, head: ResponseHead): void {
  const { ctx } = ex;
  const first = rpcMessages(ex.body).map(rpcFacts).find((rpc) => rpc.kind !== undefined);
  ctx.recorder.record({
    kind: 'http',
    method: 'POST',
    path: ctx.path,
    status: head.status,
    req_headers: { ...ctx.loggableHeaders },
    resp_headers: head.contentType === undefined ? {} : { 'content-type': head.contentType },
    ...(first?.kind !== undefined && { rpc_kind: first.kind }),
    ...(first?.method !== undefined && { rpc_method: first.method }),
    ...(first?.id !== undefined && { rpc_id: first.id }),
    ...requestIdentity(ctx),
  });
}

function onAcceptedGet(ex: Exchange, head: ResponseHead): void {
  const { ctx } = ex;
  const tracker = trackerOf(ctx.recorder);
  ctx.session = ctx.presentedSession ?? undefined;
  const replay = ctx.replay !== undefined && ctx.replay.error === undefined ? ctx.replay : undefined;
  const sequence = replay !== undefined ? replay.sequence : SDK_STANDALONE_STREAM_ID;
  if (head.eventStream && ctx.session !== undefined) ctx.body = openBody(ex, 'get', ctx.session);
  const predecessor = ctx.body !== undefined && sequence ? tracker.bind(ctx.body, sequence) : undefined;
  // The SDK ends the body it replaces before answering: log that end first if
  // it has happened, so the log does not show two live writers.
  if (predecessor?.open && predecessor.endedByServer()) predecessor.close('server');
  const replayed = replay !== undefined ? replayFields(tracker, replay) : { replayed: 0 };
  // An id the log never saw sent: the body that last served that SDK stream is the one resumed.
  if (replay !== undefined && replayed.stream === undefined && predecessor !== undefined) replayed.stream = predecessor.stream;
  ctx.recorder.record({
    kind: 'upgrade',
    session: ctx.presentedSession,
    last_event_id: ctx.lastEventId,
    ...replayed,
    ...(ctx.body !== undefined && { new_stream: ctx.body.stream }),
    // The client asked to resume: the answer is a resumption whatever the server replayed (none, without
    // an event store), so the rules judge what it left out.
    decision: ctx.lastEventId !== null ? 'resume' : 'attach',
    status: head.status,
    // The SDK re-emits no pending server request on a new stream, nor fails one: observably none.
    reemitted: 0,
    cancelled: 0,
    ...requestIdentity(ctx),
  });
  if (ctx.body !== undefined) {
    ctx.recorder.record({ kind: 'stream.opened', session: ctx.body.session, stream: ctx.body.stream, via: 'get', ...requestIdentity(ctx) });
  }
}

function logRejectedGet(ex: Exchange): void {
  const { ctx, head } = ex;
  const message = ex.errorBody === undefined ? undefined : jsonRpcErrorMessage(ex.errorBody());
  const reason =
    ctx.replay?.error !== undefined ? `replay_failed: ${ctx.replay.error}` : (message ?? (head ? `http_${head.status}` : 'no_response'));
  ctx.recorder.record({
    kind: 'upgrade',
    session: ctx.presentedSession,
    last_event_id: ctx.lastEventId,
    decision: 'reject',
    ...(head !== undefined && { status: head.status }),
    reason,
    ...requestIdentity(ctx),
  });
}

function openBody(ex: Exchange, via: 'get' | 'post', session: string): SseBody {
  const { recorder } = ex.ctx;
  const body: SseBody = {
    stream: trackerOf(recorder).newStreamId(via),
    session,
    via,
    open: true,
    endedByServer: () => ex.res.writableEnded,
    close(reason) {
      if (!body.open) return;
      body.open = false;
      recorder.record({
        kind: 'stream.closed',
        session,
        stream: body.stream,
        reason,
        ...(reason === 'poll' && body.retryMs !== undefined && { retry_ms: body.retryMs }),
        ...versionOf(ex.ctx),
      });
    },
  };
  return body;
}

function flushDeferred(ctx: RequestContext): void {
  for (const write of ctx.deferred.splice(0)) write();
}

function principalOf(ctx: RequestContext): Pick<RecordFields, 'principal'> {
  return ctx.principal === undefined ? {} : { principal: ctx.principal };
}

function requestIdentity(ctx: RequestContext): Pick<RecordFields, 'conn' | 'principal' | 'protocol_version'> {
  return { conn: ctx.conn, ...principalOf(ctx), ...versionOf(ctx) };
}
