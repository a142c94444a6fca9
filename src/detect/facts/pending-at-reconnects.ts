import type { Db } from '../../store/db.js';
import { eachQueryRow } from '../query-rows.js';
import type { DetectOptions } from '../types.js';

// The server requests pending at each accepted reconnect (the pending_at_upgrade
// view's question, src/store/views.ts), from one walk of each session's request
// lives and reconnects in log order. Listing the pairs instead costs the
// session's length squared where requests are never answered: each is pending
// at every later reconnect.

export interface PendingRequest {
  sentId: number;
  sentTs: number;
  requestId: string;
  method: string | null;
  stream: string | null;
  eventId: string | null;
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
}

interface Row {
  session: string;
  ts_ms: number;
  id: number;
  step: 'sent' | 'ended' | 'reconnect';
  sent_id: number | null;
  request_id: string | null;
  method: string | null;
  stream: string | null;
  event_id: string | null;
  end_ts: number | null;
  end_id: number | null;
  decision: 'resume' | 'attach' | null;
  reemitted: number | null;
  cancelled: number | null;
  new_stream: string | null;
  last_event_id: string | null;
}

/**
 * Calls `visit` for every accepted resume or attach with a session, session by session in log order, with the
 * requests pending at it in the order sent. The map is the walk's own, changed after `visit` returns: copy what
 * you keep.
 */
export function walkPendingAtReconnects(db: Db, opts: DetectOptions, visit: (r: AcceptedReconnect, pending: ReadonlyMap<number, PendingRequest>) => void): void {
  let session: string | undefined;
  const pending = new Map<number, PendingRequest>();
  for (const row of eachQueryRow<Row>(db, 'facts/requests-and-reconnects', opts)) {
    if (row.session !== session) {
      session = row.session;
      pending.clear();
    }
    if (row.step === 'sent') {
      if (row.end_id !== null && (row.end_ts! < row.ts_ms || (row.end_ts === row.ts_ms && row.end_id < row.id))) continue;
      pending.set(row.sent_id!, {
        sentId: row.sent_id!,
        sentTs: row.ts_ms,
        requestId: String(row.request_id),
        method: row.method,
        stream: row.stream,
        eventId: row.event_id === null ? null : String(row.event_id),
      });
    } else if (row.step === 'ended') pending.delete(row.sent_id!);
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
        },
        pending,
      );
    }
  }
}
