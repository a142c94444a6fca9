import type { Db } from './db.js';

// Rebuilds the derived timeline (incarnations, streams, events, requests) for
// the sessions touched since the last derive, then clears the dirty set. Live
// mode calls this per batch, so the cost follows the batch, not the history.

const DIRTY = 'SELECT session FROM dirty_sessions';

export function deriveTimeline(db: Db): number {
  const dirty = (db.prepare('SELECT count(*) AS n FROM dirty_sessions').get() as { n: number }).n;
  if (dirty === 0) return 0;
  db.transaction(() => {
    shadowProxyDuplicates(db);
    for (const t of ['incarnations', 'streams', 'events', 'requests']) db.exec(`DELETE FROM ${t} WHERE session IN (${DIRTY})`);
    deriveIncarnations(db);
    deriveStreams(db);
    deriveEvents(db);
    deriveRequests(db);
    db.exec('DELETE FROM dirty_sessions');
  })();
  return dirty;
}

/** A server that logs `http` records beside its own gives both the same `req`: count that request once. */
function shadowProxyDuplicates(db: Db): void {
  db.exec(`
    UPDATE records SET shadowed = 1
    WHERE origin = 'proxy' AND shadowed = 0 AND req IS NOT NULL
      AND req IN (SELECT req FROM records WHERE origin = 'server' AND req IS NOT NULL)`);
}

function deriveIncarnations(db: Db): void {
  db.exec(`
    INSERT INTO incarnations (session, created_id, created_ts, incarnation, node, owner)
    SELECT session, id, ts_ms, incarnation, node, principal FROM records
    WHERE kind = 'session.created' AND shadowed = 0 AND session IN (${DIRTY});

    -- Without a principal on the creation, the owner is the first principal logged for the session.
    UPDATE incarnations SET owner = (
      SELECT r.principal FROM records r
      WHERE r.session = incarnations.session AND r.principal IS NOT NULL AND r.ts_ms >= incarnations.created_ts
      ORDER BY r.ts_ms, r.id LIMIT 1)
    WHERE owner IS NULL AND session IN (${DIRTY});

    -- Each end belongs to the latest creation before it; an incarnation ends at its first end.
    WITH ends AS (
      SELECT r.id, r.ts_ms, r.kind, COALESCE(r.log_evicted, 1) AS log_evicted,
        (SELECT i.created_id FROM incarnations i
         WHERE i.session = r.session AND (i.created_ts < r.ts_ms OR (i.created_ts = r.ts_ms AND i.created_id < r.id))
         ORDER BY i.created_ts DESC, i.created_id DESC LIMIT 1) AS inc
      FROM records r
      WHERE r.kind IN ('session.terminated', 'session.evicted') AND r.session IN (${DIRTY})
    ), first_end AS (
      SELECT *, row_number() OVER (PARTITION BY inc ORDER BY ts_ms, id) AS k FROM ends WHERE inc IS NOT NULL
    )
    UPDATE incarnations SET
      ended_id = f.id, ended_ts = f.ts_ms,
      ended_how = CASE f.kind WHEN 'session.terminated' THEN 'terminated' ELSE 'evicted' END,
      log_evicted = f.log_evicted
    FROM first_end f WHERE f.k = 1 AND f.inc = incarnations.created_id;
  `);
}

function deriveStreams(db: Db): void {
  db.exec(`
    INSERT INTO streams (session, stream, lane)
    SELECT session, stream, COALESCE(max(sequence), stream) FROM (
      SELECT session, stream, sequence FROM records
      WHERE stream IS NOT NULL AND session IS NOT NULL AND shadowed = 0 AND kind <> 'upgrade' AND session IN (${DIRTY})
      UNION ALL
      SELECT session, new_stream, sequence FROM records
      WHERE kind = 'upgrade' AND new_stream IS NOT NULL AND session IS NOT NULL AND shadowed = 0 AND session IN (${DIRTY})
    ) GROUP BY session, stream;

    WITH o AS (
      SELECT *, row_number() OVER (PARTITION BY session, stream ORDER BY ts_ms, id) AS k FROM records
      WHERE kind = 'stream.opened' AND session IN (${DIRTY}))
    UPDATE streams SET via = o.via, opened_id = o.id, opened_ts = o.ts_ms, node = o.node, conn = o.conn, principal = o.principal
    FROM o WHERE o.k = 1 AND o.session = streams.session AND o.stream = streams.stream;

    WITH c AS (
      SELECT *, row_number() OVER (PARTITION BY session, stream ORDER BY ts_ms, id) AS k FROM records
      WHERE kind = 'stream.closed' AND session IN (${DIRTY}))
    UPDATE streams SET closed_id = c.id, closed_ts = c.ts_ms, close_reason = c.reason
    FROM c WHERE c.k = 1 AND c.session = streams.session AND c.stream = streams.stream;

    WITH f AS (
      SELECT *, row_number() OVER (PARTITION BY session, stream ORDER BY ts_ms, id) AS k FROM records
      WHERE kind = 'stream.fenced' AND session IN (${DIRTY}))
    UPDATE streams SET fenced_id = f.id, fenced_ts = f.ts_ms
    FROM f WHERE f.k = 1 AND f.session = streams.session AND f.stream = streams.stream;

    -- A stream whose response came from an upgrade inherits the upgrade's via (GET) and node.
    UPDATE streams SET via = COALESCE(streams.via, 'get'),
      opened_id = COALESCE(streams.opened_id, u.id), opened_ts = COALESCE(streams.opened_ts, u.ts_ms), node = COALESCE(streams.node, u.node),
      conn = COALESCE(streams.conn, u.conn), principal = COALESCE(streams.principal, u.principal)
    FROM (SELECT * FROM records WHERE kind = 'upgrade' AND shadowed = 0 AND new_stream IS NOT NULL AND session IN (${DIRTY})) u
    WHERE u.session = streams.session AND u.new_stream = streams.stream AND streams.opened_id IS NULL;
  `);
  linkLineages(db);
  deriveSupersession(db);
}

/**
 * An accepted resumption continues the resumed stream on a new response: the
 * new stream joins the old one's lane (its lineage). Chains are resolved here,
 * in upgrade order, which SQL would need recursion for.
 */
function linkLineages(db: Db): void {
  const links = db
    .prepare(
      `SELECT u.session, u.new_stream, COALESCE(u.stream, e.stream) AS resumed
       FROM records u
       LEFT JOIN records e ON e.kind = 'event.sent' AND e.session = u.session AND e.event_id = u.last_event_id
       WHERE u.kind = 'upgrade' AND u.shadowed = 0 AND u.decision = 'resume' AND u.status BETWEEN 200 AND 299
         AND u.new_stream IS NOT NULL AND u.session IN (${DIRTY})
       ORDER BY u.ts_ms, u.id`,
    )
    .all() as { session: string; new_stream: string; resumed: string | null }[];
  if (links.length === 0) return;
  const laneOf = db.prepare('SELECT lane FROM streams WHERE session = ? AND stream = ?').pluck();
  const setLane = db.prepare('UPDATE streams SET lane = ? WHERE session = ? AND lane = ?');
  for (const l of links) {
    if (l.resumed === null || l.resumed === l.new_stream) continue;
    const from = laneOf.get(l.session, l.resumed) as string | undefined;
    const to = laneOf.get(l.session, l.new_stream) as string | undefined;
    if (from !== undefined && to !== undefined && from !== to) setLane.run(from, l.session, to);
  }
}

/**
 * Superseded (rules.md): an accepted resumption supersedes the stream it
 * resumes and the stream that emitted last_event_id; an accepted attach
 * supersedes every earlier GET stream of the session.
 */
function deriveSupersession(db: Db): void {
  db.exec(`
    WITH accepted AS (
      SELECT * FROM records WHERE kind = 'upgrade' AND shadowed = 0 AND status BETWEEN 200 AND 299
        AND decision IN ('resume', 'attach') AND session IN (${DIRTY})
    ), targets AS (
      SELECT u.id AS up_id, u.ts_ms AS up_ts, u.session, u.new_stream, u.stream AS target FROM accepted u
      WHERE u.decision = 'resume' AND u.stream IS NOT NULL
      UNION
      SELECT u.id, u.ts_ms, u.session, u.new_stream, e.stream FROM accepted u
      JOIN records e ON e.kind = 'event.sent' AND e.session = u.session AND e.event_id = u.last_event_id
        AND (e.ts_ms < u.ts_ms OR (e.ts_ms = u.ts_ms AND e.id < u.id))
      WHERE u.decision = 'resume'
      UNION
      SELECT u.id, u.ts_ms, u.session, u.new_stream, s.stream FROM accepted u
      JOIN streams s ON s.session = u.session AND s.via = 'get'
        AND (s.opened_ts < u.ts_ms OR (s.opened_ts = u.ts_ms AND s.opened_id < u.id))
      WHERE u.decision = 'attach'
    ), first_target AS (
      -- An upgrade never supersedes the stream it opens (a stream id reused
      -- across a resumption): drop those before picking the first, so that a
      -- later upgrade that does supersede it is not hidden.
      SELECT *, row_number() OVER (PARTITION BY session, target ORDER BY up_ts, up_id) AS k FROM targets
      WHERE target IS NOT NULL AND target IS NOT new_stream
    )
    UPDATE streams SET superseded_id = t.up_id, superseded_ts = t.up_ts
    FROM first_target t WHERE t.k = 1 AND t.session = streams.session AND t.target = streams.stream;
  `);
}

function deriveEvents(db: Db): void {
  db.exec(`
    INSERT INTO events (id, session, stream, lane, event_id, ts_ms, lane_pos, attached, request_id, method)
    SELECT r.id, r.session, r.stream, s.lane, r.event_id, r.ts_ms,
      row_number() OVER (PARTITION BY r.session, s.lane ORDER BY r.ts_ms, r.id),
      COALESCE(r.attached, 1),
      CASE WHEN r.kind = 'request.sent' THEN r.request_id WHEN r.rpc_kind = 'request' THEN r.rpc_id END,
      r.method
    FROM records r JOIN streams s ON s.session = r.session AND s.stream = r.stream
    WHERE r.session IN (${DIRTY}) AND r.shadowed = 0 AND r.event_id IS NOT NULL AND (
      r.kind = 'event.sent'
      -- a request.sent names the event.sent that carried it (one emission, not two);
      -- only when that event.sent is missing is the request itself the emission.
      OR (r.kind = 'request.sent' AND NOT EXISTS (
        SELECT 1 FROM records e WHERE e.kind = 'event.sent' AND e.session = r.session AND e.event_id = r.event_id AND e.stream = r.stream)));

    UPDATE events SET request_id = q.request_id, method = COALESCE(events.method, q.method)
    FROM (SELECT session, event_id, request_id, method FROM records WHERE kind = 'request.sent' AND event_id IS NOT NULL AND session IN (${DIRTY})) q
    WHERE q.session = events.session AND q.event_id = events.event_id AND events.request_id IS NULL;
  `);
}

function deriveRequests(db: Db): void {
  db.exec(`
    INSERT INTO requests (session, request_id, sent_id, sent_ts, stream, method, event_id)
    SELECT session, request_id, id, ts_ms, stream, method, event_id FROM records
    WHERE kind = 'request.sent' AND shadowed = 0 AND session IN (${DIRTY});

    -- Each resolution belongs to the latest send of that id before it.
    WITH res AS (
      SELECT r.id, r.ts_ms, r.kind,
        (SELECT q.sent_id FROM requests q WHERE q.session = r.session AND q.request_id = r.request_id
           AND (q.sent_ts < r.ts_ms OR (q.sent_ts = r.ts_ms AND q.sent_id < r.id))
         ORDER BY q.sent_ts DESC, q.sent_id DESC LIMIT 1) AS sent_id
      FROM records r
      WHERE r.session IN (${DIRTY}) AND r.shadowed = 0 AND (
        (r.kind = 'request.answered' AND r.status BETWEEN 200 AND 299)
        OR r.kind IN ('request.cancelled', 'request.reissued', 'request.timed_out'))
    ), firsts AS (
      SELECT *, row_number() OVER (PARTITION BY sent_id, kind ORDER BY ts_ms, id) AS k FROM res WHERE sent_id IS NOT NULL
    )
    UPDATE requests SET
      answered_id = (SELECT id FROM firsts f WHERE f.sent_id = requests.sent_id AND f.kind = 'request.answered' AND k = 1),
      cancelled_id = (SELECT id FROM firsts f WHERE f.sent_id = requests.sent_id AND f.kind = 'request.cancelled' AND k = 1),
      reissued_id = (SELECT id FROM firsts f WHERE f.sent_id = requests.sent_id AND f.kind = 'request.reissued' AND k = 1),
      timed_out_id = (SELECT id FROM firsts f WHERE f.sent_id = requests.sent_id AND f.kind = 'request.timed_out' AND k = 1)
    WHERE session IN (${DIRTY});

    UPDATE requests SET answered_ts = (SELECT ts_ms FROM records WHERE id = answered_id),
      resolved_ts = (SELECT min(ts_ms) FROM records WHERE id IN (answered_id, cancelled_id, reissued_id))
    WHERE session IN (${DIRTY});
  `);
}
