import { currentRequest, noteInitializeResult, versionOf, whenHeadWritten, type ReplayFacts, type RequestContext } from './request-context.js';
import { isPrimingMessage, rpcFacts } from './jsonrpc.js';
import type { Recorder } from './recorder.js';
import type { RecordFields } from './records.js';
import type { EventStoreLike } from './sdk-types.js';
import { SDK_STANDALONE_STREAM_ID, trackerOf, type Tracker } from './tracker.js';

/** The SDK's request-timeout error code, as its `notifications/cancelled` reason spells it. */
const TIMED_OUT_REASON = /MCP error -32001\b/;

/**
 * Wraps the EventStore given to `StreamableHTTPServerTransport`: every stored
 * event is logged as `event.sent` (plus `request.sent` for a server-to-client
 * request), and every replay's facts feed the request's `upgrade` record.
 * Pass-through: ids, messages, replays and errors are the wrapped store's.
 *
 * Use one wrapper per transport, or one shared by all: the session an event
 * belongs to comes from the HTTP request in flight (see `instrumentRequests`).
 */
export function instrumentEventStore<M>(store: EventStoreLike<M>, recorder: Recorder): EventStoreLike<M> {
  const tracker = trackerOf(recorder);
  tracker.eventStoreSeen = true;
  // A wrapper used by one transport only has seen one session: the last
  // resort for events stored outside any request (a timer, a background task).
  const sessionsSeen = new Set<string>();
  const soleSessionSeen = (): string | undefined => (sessionsSeen.size === 1 ? [...sessionsSeen][0] : undefined);
  const sessionOf = (ctx: RequestContext | undefined, streamId: string): string | undefined =>
    ctx?.session ??
    // A response stream's SDK id is unique to the session it was opened in; the standalone one is not.
    (streamId === SDK_STANDALONE_STREAM_ID ? undefined : tracker.soleSessionOf(streamId)) ??
    soleSessionSeen();

  const wrapped: EventStoreLike<M> = {
    async storeEvent(streamId, message) {
      const eventId = await store.storeEvent(streamId, message);
      const ctx = currentRequest(recorder);
      claimPostSequence(tracker, ctx, streamId);
      // Now, not once the head is out: a server close after this is no longer a poll.
      const rpc = rpcFacts(message);
      if (ctx !== undefined && rpc.kind === 'response' && rpc.id !== undefined) ctx.answeredIds.add(rpc.id);
      // An initialize's result: the session's revision is the one negotiated, and the records held for it go now.
      if (rpc.kind === 'response') noteInitializeResult(ctx, message);
      whenHeadWritten(ctx, () => {
        const session = sessionOf(ctx, streamId);
        if (session !== undefined) sessionsSeen.add(session);
        logStoredEvent(recorder, tracker, { session, streamId, eventId, message, ctx });
      });
      return eventId;
    },

    async replayEventsAfter(lastEventId, { send }) {
      const ctx = currentRequest(recorder);
      const facts: ReplayFacts = { lastEventId, replayedIds: [] };
      if (ctx !== undefined) ctx.replay = facts;
      markTakenOver(tracker, ctx, lastEventId);
      try {
        const sequence = await store.replayEventsAfter(lastEventId, {
          send: async (eventId, message) => {
            await send(eventId, message);
            facts.replayedIds.push(eventId);
          },
        });
        facts.sequence = sequence;
        return sequence;
      } catch (err) {
        facts.error = err instanceof Error ? err.message : String(err);
        throw err;
      } finally {
        // Without the middleware nobody sees the HTTP status: log what the store saw.
        if (ctx === undefined) {
          const session = soleSessionSeen();
          recorder.record({
            kind: 'upgrade',
            ...(session !== undefined && { session }),
            last_event_id: lastEventId,
            ...(facts.error === undefined
              ? { decision: 'resume', ...replayFields(tracker, facts) }
              : { decision: 'reject', reason: `replay_failed: ${facts.error}` }),
          });
        }
      }
    },
  };
  const resolveStream = store.getStreamIdForEventId?.bind(store);
  if (resolveStream !== undefined) wrapped.getStreamIdForEventId = resolveStream;
  return wrapped;
}

/**
 * A resumption of a stream whose body is still open takes the stream over:
 * the SDK ends that body for it, which is a server close, not a poll.
 */
function markTakenOver(tracker: Tracker, ctx: RequestContext | undefined, lastEventId: string): void {
  const origin = tracker.originOf(lastEventId);
  const session = ctx?.session ?? ctx?.presentedSession ?? undefined;
  if (origin === undefined || session === undefined || origin.session !== session) return;
  const body = tracker.bodyFor(session, origin.sequence);
  if (body?.open) body.takenOver = true;
}

/** The `upgrade` fields a replay establishes. */
export function replayFields(tracker: Tracker, facts: ReplayFacts): Omit<RecordFields, 'kind'> {
  const origin = tracker.originOf(facts.lastEventId);
  const ids = facts.replayedIds;
  return {
    ...(origin !== undefined && { stream: origin.stream }),
    ...(facts.sequence ? { sequence: facts.sequence } : {}),
    replayed: ids.length,
    ...(ids.length > 0 && { first_replayed: ids[0], replayed_ids: [...ids] }),
  };
}

// The SDK stores a POST response stream's first event (its priming event, or
// the first message) while handling that POST: that names the SDK stream the
// response body serves.
function claimPostSequence(tracker: Tracker, ctx: RequestContext | undefined, streamId: string): void {
  if (ctx === undefined || ctx.httpMethod !== 'POST' || ctx.sequence !== undefined) return;
  if (streamId === SDK_STANDALONE_STREAM_ID) return;
  ctx.sequence = streamId;
  if (ctx.body !== undefined) tracker.bind(ctx.body, streamId);
}

interface StoredEvent {
  session: string | undefined;
  streamId: string;
  eventId: string;
  message: unknown;
  ctx: RequestContext | undefined;
}

function logStoredEvent(recorder: Recorder, tracker: Tracker, { session, streamId, eventId, message, ctx }: StoredEvent): void {
  const body = session === undefined ? undefined : tracker.bodyFor(session, streamId);
  // Stored while no body serves that SDK stream: it exists only for replay.
  const stream = body?.stream ?? `unbound:${streamId}`;
  const rpc = rpcFacts(message);
  // An event that cannot be tied to a session is still written: the recorder
  // turns it into a note the analyzer counts (an ignored line), not a lost line.
  const version = versionOf(ctx);
  const where = { ...(session !== undefined && { session }), stream, ...version };
  if (session !== undefined) {
    tracker.noteSequence(streamId, session);
    tracker.noteOrigin(eventId, { session, stream, sequence: streamId });
  }
  recorder.record({
    kind: 'event.sent',
    ...where,
    sequence: streamId,
    event_id: eventId,
    ...(rpc.kind !== undefined && { rpc_kind: rpc.kind }),
    ...(rpc.id !== undefined && { rpc_id: rpc.id }),
    ...(rpc.method !== undefined && { method: rpc.method }),
    ...(body?.open !== true && { attached: false }),
    ...(isPrimingMessage(message) && { priming: true }),
  });
  if (rpc.kind === 'request' && rpc.id !== undefined) {
    recorder.record({ kind: 'request.sent', ...where, request_id: rpc.id, method: rpc.method, event_id: eventId });
  }
  if (rpc.cancels !== undefined) {
    const { requestId, reason } = rpc.cancels;
    if (reason !== undefined && TIMED_OUT_REASON.test(reason)) {
      recorder.record({ kind: 'request.timed_out', ...(session !== undefined && { session }), request_id: requestId, ...version });
    } else {
      recorder.record({
        kind: 'request.cancelled',
        ...(session !== undefined && { session }),
        request_id: requestId,
        ...(reason !== undefined && { reason }),
        ...version,
      });
    }
  }
}
