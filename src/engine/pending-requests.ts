// Server-to-client requests (sampling, elicitation, roots/list, ...) and their
// lifecycle. They belong to the session, not to the stream that carried them:
// an attach must re-emit or cancel every one still pending.

import type { EngineRecord, Incarnation, ServerRequest } from './types.js';

/** The request's entry, created blank when a lifecycle record comes before its `request.sent`. */
function requestEntry(inc: Incarnation, id: string): ServerRequest {
  let request = inc.requests.get(id);
  if (!request) {
    request = { id, sent: false, answered: false, cancelled: false, reissued: false, timedOut: false };
    inc.requests.set(id, request);
  }
  return request;
}

export function noteRequestSent(
  inc: Incarnation,
  id: string,
  record: Pick<EngineRecord, 'stream' | 'method'>,
  eventId: string | undefined,
  pos: number,
): void {
  const request = requestEntry(inc, id);
  if (!request.sent) {
    request.sent = true;
    request.sentPos = pos;
    if (isPending(request)) inc.sentUnresolved.add(request);
  }
  request.stream ??= record.stream;
  request.method ??= record.method;
  if (eventId !== undefined) {
    request.eventId ??= eventId;
    inc.events.noteRequest(eventId, id);
  }
}

/** Sent, and not answered (2xx), cancelled, re-issued or timed out. */
function isPending(request: ServerRequest): boolean {
  return request.sent && !request.answered && !request.cancelled && !request.reissued && !request.timedOut;
}

/** The incarnation's pending requests, in the order they were sent. */
export function pendingRequests(inc: Incarnation): ServerRequest[] {
  return [...inc.sentUnresolved].filter(isPending).sort((a, b) => (a.sentPos ?? 0) - (b.sentPos ?? 0));
}

/** A lifecycle record resolved the request (answered with a 2xx, cancelled, timed out, re-issued): never pending again. */
export function resolveRequest(inc: Incarnation, id: string, how: 'answered' | 'cancelled' | 'timedOut' | 'reissued'): ServerRequest {
  const request = requestEntry(inc, id);
  request[how] = true;
  inc.sentUnresolved.delete(request);
  return request;
}
