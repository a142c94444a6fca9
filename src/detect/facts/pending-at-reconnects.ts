import type { Db } from '../../store/db.js';
import { IDS_SHOWN } from '../../model/phrasing.js';
import { eachQueryRow } from '../query-rows.js';
import type { DetectOptions } from '../types.js';

// The server requests pending at each accepted reconnect (the pending_at_upgrade
// view's question, src/store/views.ts), from one walk of each session's request
// lives and reconnects in log order. Listing the pairs instead costs the
// session's length squared where requests are never answered: each is pending
// at every later reconnect.

export interface PendingRequest {
  sentId: number;
  requestId: string;
  method: string | null;
  /** Its stream's lane (null: the stream is not in the timeline). */
  lane: string | null;
  /** False where the emission that carried it was not written to the stream the client reads. */
  attached: boolean;
  /**
   * True while the POST stream that carried it is open: a client that did not restart can still read it there.
   * False from the stream's end on, and for a request on any other stream.
   */
  held: boolean;
}

export interface AcceptedReconnect {
  id: number;
  session: string;
  atMs: number;
  decision: 'resume' | 'attach';
  stream: string | null;
  newStream: string | null;
  lastEventId: string | null;
  reemitted: number | null;
  cancelled: number | null;
  /** A resume's lane: the resumed stream's, else where its Last-Event-ID was last sent (null for an attach). */
  lane: string | null;
  /** A creation of the session comes before it in the log. */
  historyLogged: boolean;
}

/**
 * The requests pending at a moment of the walk, in the order sent, and by lane. Read it during `visit` only:
 * the walk changes it afterwards.
 */
class PendingRequests {
  private readonly all = new Map<number, PendingRequest>();
  /** The pending requests not held by an open POST stream. */
  private readonly loose = new Map<number, PendingRequest>();
  private readonly lanes = new Map<string | null, Map<number, PendingRequest>>();
  private unattached = 0;
  private readonly unattachedByLane = new Map<string | null, number>();
  /** Whether this session's requests came in record id order (logs read out of time order may not). */
  private idOrdered = true;
  private lastSentId = -Infinity;

  get size(): number {
    return this.all.size;
  }

  /** Every pending request, in the order sent (sent time, then record id). */
  values(): IterableIterator<PendingRequest> {
    return this.all.values();
  }

  /** How many pending requests no open POST stream holds. */
  get looseCount(): number {
    return this.loose.size;
  }

  /** How many pending requests are on `lane`. */
  countOnLane(lane: string | null): number {
    return this.lanes.get(lane)?.size ?? 0;
  }

  /** How many pending requests off `lane` were carried by an emission not written to the client's stream. */
  unattachedOffLane(lane: string | null): number {
    return this.unattached - (this.unattachedByLane.get(lane) ?? 0);
  }

  /** The pending requests for which `keep` holds, by record id, as many as `limit`. */
  firstById(keep: (q: PendingRequest) => boolean, limit: number, lane?: string | null): PendingRequest[] {
    const from = lane === undefined ? this.all : (this.lanes.get(lane) ?? new Map<number, PendingRequest>());
    if (!this.idOrdered) return [...from.values()].filter(keep).sort((a, b) => a.sentId - b.sentId).slice(0, limit);
    const out: PendingRequest[] = [];
    for (const q of from.values()) {
      if (out.length >= limit) break;
      if (keep(q)) out.push(q);
    }
    return out;
  }

  add(q: PendingRequest): void {
    this.all.set(q.sentId, q);
    if (!q.held) this.loose.set(q.sentId, q);
    let lane = this.lanes.get(q.lane);
    if (lane === undefined) this.lanes.set(q.lane, (lane = new Map()));
    lane.set(q.sentId, q);
    if (!q.attached) {
      this.unattached++;
      this.unattachedByLane.set(q.lane, (this.unattachedByLane.get(q.lane) ?? 0) + 1);
    }
    if (q.sentId < this.lastSentId) this.idOrdered = false;
    this.lastSentId = q.sentId;
  }

  /** Its POST stream ended: the request, if still pending, is no longer carried anywhere. */
  release(sentId: number): void {
    const q = this.all.get(sentId);
    if (q === undefined || !q.held) return;
    q.held = false;
    this.loose.set(sentId, q);
  }

  delete(sentId: number): void {
    const q = this.all.get(sentId);
    if (q === undefined) return;
    this.all.delete(sentId);
    this.loose.delete(sentId);
    this.lanes.get(q.lane)!.delete(sentId);
    if (!q.attached) {
      this.unattached--;
      this.unattachedByLane.set(q.lane, this.unattachedByLane.get(q.lane)! - 1);
    }
  }
}

interface Row {
  session: string;
  ts_ms: number;
  id: number;
  step: 'sent' | 'ended' | 'released' | 'reconnect';
  sent_id: number | null;
  request_id: string | null;
  method: string | null;
  stream: string | null;
  end_ts: number | null;
  end_id: number | null;
  lane: string | null;
  attached: number | null;
  decision: 'resume' | 'attach' | null;
  reemitted: number | null;
  cancelled: number | null;
  new_stream: string | null;
  last_event_id: string | null;
  history_logged: number | null;
  held: number | null;
}

/** Calls `visit` for every accepted resume or attach with a session, session by session in log order, with the requests pending at it. */
export function walkPendingAtReconnects(db: Db, opts: DetectOptions, visit: (r: AcceptedReconnect, pending: PendingRequests) => void): void {
  let session: string | undefined;
  let pending = new PendingRequests();
  for (const row of eachQueryRow<Row>(db, 'facts/requests-and-reconnects', opts)) {
    if (row.session !== session) {
      session = row.session;
      pending = new PendingRequests();
    }
    if (row.step === 'sent') {
      if (row.end_id !== null && (row.end_ts! < row.ts_ms || (row.end_ts === row.ts_ms && row.end_id < row.id))) continue;
      pending.add({
        sentId: row.sent_id!,
        requestId: String(row.request_id),
        method: row.method,
        lane: row.lane,
        attached: row.attached !== 0,
        held: row.held === 1,
      });
    } else if (row.step === 'ended') pending.delete(row.sent_id!);
    else if (row.step === 'released') pending.release(row.sent_id!);
    else {
      visit(
        {
          id: row.id,
          session: row.session,
          atMs: row.ts_ms,
          decision: row.decision!,
          stream: row.stream,
          newStream: row.new_stream,
          lastEventId: row.last_event_id,
          reemitted: row.reemitted,
          cancelled: row.cancelled,
          lane: row.lane,
          historyLogged: row.history_logged === 1,
        },
        pending,
      );
    }
  }
}

/** An accepted attach that found more requests pending than it re-emitted and cancelled. */
export interface AttachShortfall {
  attach: AcceptedReconnect;
  pending: number;
  /** How many of them an open POST stream still carried (the message says so: the client may read them there). */
  onOpenPost: number;
  /** The first pending requests, in the order sent: as many as a message names and the evidence needs. */
  first: PendingRequest[];
}

/** A resume that logged re-emitting more requests than were never delivered (or logged no count). */
export interface ReemittingResume {
  resume: AcceptedReconnect;
  neverDelivered: number;
  onLane: { first: string[]; count: number };
  deliveredElsewhere: { first: string[]; count: number };
  /** The requests the client had, on the resumed lane first, as many as were re-emitted twice; then the resume. */
  evidence: number[];
}

/** What pending-not-reemitted and duplicate-reemit judge, from one walk, each in log order (a fact the two share). */
export interface PendingAtReconnects {
  attachShortfalls: AttachShortfall[];
  reemittingResumes: ReemittingResume[];
}

export function pendingAtReconnects(db: Db, opts: DetectOptions): PendingAtReconnects {
  const attachShortfalls: AttachShortfall[] = [];
  const reemittingResumes: ReemittingResume[] = [];
  walkPendingAtReconnects(db, opts, (r, pending) => {
    if (r.decision === 'attach') {
      const shortfall = attachShortfall(r, pending);
      if (shortfall) attachShortfalls.push(shortfall);
    } else {
      const resume = reemittingResume(r, pending);
      if (resume) reemittingResumes.push(resume);
    }
  });
  const byTime = (a: AcceptedReconnect, b: AcceptedReconnect) => a.atMs - b.atMs || a.id - b.id;
  attachShortfalls.sort((a, b) => byTime(a.attach, b.attach));
  reemittingResumes.sort((a, b) => byTime(a.resume, b.resume));
  return { attachShortfalls, reemittingResumes };
}

function attachShortfall(attach: AcceptedReconnect, pending: PendingRequests): AttachShortfall | undefined {
  const handled = (attach.reemitted ?? 0) + (attach.cancelled ?? 0);
  if (pending.size <= handled) return undefined;
  // Evidence: as many pending requests as it takes to exceed the counters.
  const first: PendingRequest[] = [];
  for (const q of pending.values()) {
    if (first.length >= Math.max(IDS_SHOWN, handled + 1)) break;
    first.push(q);
  }
  return { attach, pending: pending.size, onOpenPost: pending.size - pending.looseCount, first };
}

function reemittingResume(r: AcceptedReconnect, pending: PendingRequests): ReemittingResume | undefined {
  if (r.reemitted !== null && r.reemitted <= 0) return undefined;
  const neverDelivered = pending.unattachedOffLane(r.lane);
  if (r.reemitted !== null && r.reemitted <= neverDelivered) return undefined;
  const onLaneCount = pending.countOnLane(r.lane);
  const delivered = (q: PendingRequest) => q.lane !== r.lane && q.attached;
  const duplicates = Math.max((r.reemitted ?? 0) - neverDelivered, 0);
  const onLane = pending.firstById(() => true, Math.max(IDS_SHOWN, duplicates), r.lane);
  const elsewhere = pending.firstById(delivered, Math.max(IDS_SHOWN, duplicates - onLane.length));
  return {
    resume: r,
    neverDelivered,
    onLane: { first: onLane.slice(0, IDS_SHOWN).map((q) => q.requestId), count: onLaneCount },
    deliveredElsewhere: { first: elsewhere.slice(0, IDS_SHOWN).map((q) => q.requestId), count: pending.size - onLaneCount - neverDelivered },
    evidence: [...[...onLane, ...elsewhere].slice(0, duplicates).map((q) => q.sentId), r.id],
  };
}
