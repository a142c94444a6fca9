import { BoundedMap } from '../model/bounded-map.js';
import type { Recorder } from './recorder.js';

// What the middleware and the event-store wrapper learn about one server and
// share through its recorder: which HTTP response body currently serves which
// SDK stream of which session, and where each event id was first sent.

/** The SDK's fixed stream id for the standalone GET stream (private in 1.32.2, the same for every session). */
export const SDK_STANDALONE_STREAM_ID = '_GET_stream';

/** One SSE response body: what the log calls a stream. */
export interface SseBody {
  readonly stream: string;
  readonly session: string;
  readonly via: 'get' | 'post';
  /** The SDK stream id this body serves, once known. */
  sequence?: string;
  open: boolean;
  /** Set when a resumption takes this body's stream over while it is open: the SDK ends it for that. */
  takenOver?: boolean;
  /** The SSE `retry` the server wrote on this body, if it wrote one. */
  retryMs?: number;
  /** Whether the server has already ended the body (its `stream.closed` may not be logged yet). */
  endedByServer(): boolean;
  /** Logs `stream.closed` once. */
  close(reason: CloseReason): void;
}

export type CloseReason = 'client' | 'server' | 'poll';

export interface EventOrigin {
  session: string;
  stream: string;
  sequence: string;
}

const MAX_SESSIONS = 10_000;
const MAX_EVENTS = 100_000;

export class Tracker {
  /** Whether an instrumented event store reports to this recorder: only then are stored responses seen. */
  eventStoreSeen = false;
  private streamCount = 0;
  private connCount = 0;
  private readonly conns = new WeakMap<object, string>();
  /** session → SDK stream id → the latest body that served it. */
  private readonly bodies = new BoundedMap<string, Map<string, SseBody>>(MAX_SESSIONS);
  /** SDK stream id → the sessions it was seen in (the standalone id is in all of them). */
  private readonly sequenceSessions = new BoundedMap<string, Set<string>>(MAX_SESSIONS * 4);
  private readonly origins = new BoundedMap<string, EventOrigin>(MAX_EVENTS);
  /** Sessions whose end is logged: logged once, whichever of DELETE and the transport's close says so first. */
  private readonly ended = new BoundedMap<string, true>(MAX_SESSIONS);
  /** Sessions whose creation is logged and whose end is not. */
  private readonly live = new BoundedMap<string, true>(MAX_SESSIONS);
  /** Set once `live` forgot a session for its bound: a session absent from it may then be live. */
  private liveForgotten = false;

  newStreamId(via: 'get' | 'post'): string {
    this.streamCount += 1;
    return `${via}-${this.streamCount}`;
  }

  connOf(socket: object): string {
    let id = this.conns.get(socket);
    if (id === undefined) {
      this.connCount += 1;
      id = `c${this.connCount}`;
      this.conns.set(socket, id);
    }
    return id;
  }

  /** Makes `body` the one serving `sequence`; returns the body it replaces. */
  bind(body: SseBody, sequence: string): SseBody | undefined {
    body.sequence = sequence;
    let bySequence = this.bodies.get(body.session);
    if (bySequence === undefined) {
      bySequence = new Map();
      this.bodies.set(body.session, bySequence);
    }
    const predecessor = bySequence.get(sequence);
    bySequence.set(sequence, body);
    this.noteSequence(sequence, body.session);
    return predecessor === body ? undefined : predecessor;
  }

  bodyFor(session: string, sequence: string): SseBody | undefined {
    return this.bodies.get(session)?.get(sequence);
  }

  noteSequence(sequence: string, session: string): void {
    const sessions = this.sequenceSessions.get(sequence) ?? new Set<string>();
    sessions.add(session);
    this.sequenceSessions.set(sequence, sessions);
  }

  /** The one session an SDK stream id was seen in, if it is unambiguous. */
  soleSessionOf(sequence: string): string | undefined {
    const sessions = this.sequenceSessions.get(sequence);
    return sessions?.size === 1 ? [...sessions][0] : undefined;
  }

  noteOrigin(eventId: string, origin: EventOrigin): void {
    this.origins.set(eventId, origin);
  }

  originOf(eventId: string): EventOrigin | undefined {
    return this.origins.get(eventId);
  }

  /** Marks a session created (again, for an id re-minted after its end). */
  startSession(session: string): void {
    this.ended.delete(session);
    if (!this.live.has(session) && this.live.size >= MAX_SESSIONS) this.liveForgotten = true;
    this.live.set(session, true);
  }

  /**
   * Whether the session's creation is logged and its end is not. A session never created here is not
   * live: unless other nodes create sessions this one serves (`createdElsewhere`), or `live` has
   * forgotten some for its bound; then only a logged end says so.
   */
  knowsLive(session: string, createdElsewhere = false): boolean {
    if (this.ended.has(session)) return false;
    return this.live.has(session) || this.liveForgotten || createdElsewhere;
  }

  /** Marks a session ended; false when its end was already logged. */
  endSession(session: string): boolean {
    if (this.ended.has(session)) return false;
    this.ended.set(session, true);
    this.live.delete(session);
    this.bodies.delete(session);
    return true;
  }

  hasEnded(session: string): boolean {
    return this.ended.has(session);
  }
}

const trackers = new WeakMap<Recorder, Tracker>();

export function trackerOf(recorder: Recorder): Tracker {
  let tracker = trackers.get(recorder);
  if (tracker === undefined) {
    tracker = new Tracker();
    trackers.set(recorder, tracker);
  }
  return tracker;
}
