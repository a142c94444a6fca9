-- Which responses to client requests were written only for replay and never delivered?
-- Written only for replay: an event.sent with rpc_kind response that is attached: false, or that was written after
-- its stream had closed (with nothing reopening that stream id in between).
-- Never delivered (how):
--   stateless     it has no session: without sessions (2026-07-28) no Last-Event-ID can ask for it;
--   no-position   the client holds no position of the stream's lineage before it (no event of the lineage was
--                 delivered before it, no accepted resumption presented one: a stream closed before its priming
--                 event): stranded at once, whatever follows;
--   session-ended no accepted resumption of the lineage from a position before it came before the session ended;
--   never-resumed none came before the log ends, which is more than :stranding_window_ms (default 60000) after it;
--   pending       none came yet, and the log ends within the stranding window with the session live: not knowable.
-- A position is an event of the lineage before the response (lane order); a Last-Event-ID the log never shows
-- emitted, presented to resume this lineage, is taken as one (and as before the response unless both are numbers
-- and it is not smaller).
-- The end of the log is its latest record, as stale-writer-blocks-reconnect reads it (live mode copies that record).
-- Evidence: the response; the close it came after (or the stream's opening and close, when the stream carried no id
-- the client could resume from); the end of the session that settled it.
WITH sessionless_closes AS MATERIALIZED (
  -- the derived streams hold sessions' streams only; a stream without a session ends at its first close
  SELECT stream, id, ts_ms, reason FROM (
    SELECT stream, id, ts_ms, reason, row_number() OVER (PARTITION BY stream ORDER BY ts_ms, id) AS k
    FROM records WHERE kind = 'stream.closed' AND session IS NULL AND shadowed = 0)
  WHERE k = 1
), responses AS MATERIALIZED (
  SELECT r.id, r.ts_ms, r.session, r.stream, r.event_id, r.rpc_id, COALESCE(r.attached, 1) AS attached, e.lane, e.lane_pos,
    s.opened_id, COALESCE(s.closed_id, c.id) AS closed_id, COALESCE(s.closed_ts, c.ts_ms) AS closed_ts,
    COALESCE(s.close_reason, c.reason) AS close_reason
  FROM records r
  LEFT JOIN streams s ON s.session = r.session AND s.stream = r.stream
  LEFT JOIN sessionless_closes c ON r.session IS NULL AND c.stream = r.stream
  LEFT JOIN events e ON e.id = r.id
  WHERE r.kind = 'event.sent' AND r.shadowed = 0 AND r.rpc_kind = 'response'
), for_replay AS MATERIALIZED (
  SELECT f.*, f.closed_id IS NOT NULL AND (f.closed_ts, f.closed_id) < (f.ts_ms, f.id) AS after_close
  FROM responses f
  WHERE f.attached = 0 OR (
    f.closed_id IS NOT NULL AND (f.closed_ts, f.closed_id) < (f.ts_ms, f.id)
    -- a stream id a server reuses (opened again, or the new stream of an accepted upgrade) is live again
    AND NOT EXISTS (
      SELECT 1 FROM records x
      WHERE x.session = f.session AND x.ts_ms BETWEEN f.closed_ts AND f.ts_ms
        AND (x.ts_ms, x.id) > (f.closed_ts, f.closed_id) AND (x.ts_ms, x.id) < (f.ts_ms, f.id) AND x.shadowed = 0
        AND ((x.kind = 'stream.opened' AND x.stream = f.stream)
          OR (x.kind = 'upgrade' AND x.new_stream = f.stream AND x.status BETWEEN 200 AND 299))))
), judged AS (
  SELECT f.*,
    -- the end of its session after it (the end of a session ends its streams)
    (SELECT x.id FROM records x
     WHERE x.session = f.session AND x.ts_ms >= f.ts_ms AND (x.ts_ms, x.id) > (f.ts_ms, f.id) AND +x.kind IN ('session.terminated', 'session.evicted')
       AND x.shadowed = 0
     ORDER BY x.ts_ms, x.id LIMIT 1) AS end_id,
    -- the client holds a position of the lineage before it
    f.lane IS NOT NULL AND (
      EXISTS (
        SELECT 1 FROM events p JOIN streams ps ON ps.session = p.session AND ps.stream = p.stream
        WHERE p.session = f.session AND p.lane = f.lane AND p.lane_pos < f.lane_pos AND p.attached = 1
          AND (ps.closed_id IS NULL OR (p.ts_ms, p.id) < (ps.closed_ts, ps.closed_id)))
      OR EXISTS (
        SELECT 1 FROM records u LEFT JOIN streams us ON us.session = u.session AND us.stream = u.stream
        WHERE u.session = f.session AND +u.kind = 'upgrade' AND u.shadowed = 0 AND u.decision = 'resume' AND u.status BETWEEN 200 AND 299
          AND (
            ((u.ts_ms, u.id) < (f.ts_ms, f.id)
              AND EXISTS (SELECT 1 FROM events l WHERE l.session = u.session AND l.event_id = u.last_event_id AND l.lane = f.lane))
            OR (us.lane = f.lane AND NOT EXISTS (SELECT 1 FROM events l WHERE l.session = u.session AND l.event_id = u.last_event_id))))
    ) AS held
  FROM for_replay f
), settled AS (
  SELECT j.*, x.ts_ms AS end_ts,
    j.held AND EXISTS (
      -- an accepted resumption of the lineage from a position before it, after it and while the session lived
      SELECT 1 FROM records u LEFT JOIN streams us ON us.session = u.session AND us.stream = u.stream
      WHERE u.session = j.session AND u.ts_ms >= j.ts_ms AND (u.ts_ms, u.id) > (j.ts_ms, j.id) AND +u.kind = 'upgrade' AND u.shadowed = 0
        AND u.decision = 'resume' AND u.status BETWEEN 200 AND 299
        AND (x.id IS NULL OR (u.ts_ms, u.id) < (x.ts_ms, x.id))
        AND (
          EXISTS (SELECT 1 FROM events l WHERE l.session = u.session AND l.event_id = u.last_event_id AND l.lane = j.lane AND l.lane_pos < j.lane_pos)
          OR (us.lane = j.lane AND NOT EXISTS (SELECT 1 FROM events l WHERE l.session = u.session AND l.event_id = u.last_event_id)
            AND NOT (u.last_event_id NOT GLOB '*[^0-9]*' AND j.event_id NOT GLOB '*[^0-9]*' AND u.last_event_id <> '' AND j.event_id <> ''
              AND CAST(u.last_event_id AS INTEGER) >= CAST(j.event_id AS INTEGER))))) AS rescued
  FROM judged j
  LEFT JOIN records x ON x.id = j.end_id
), log_end AS (SELECT max(ts_ms) AS ts_ms FROM records)
SELECT s.session, s.ts_ms AS at_ms, s.stream, s.event_id, s.rpc_id, s.attached, s.after_close, s.closed_ts, s.close_reason,
  s.how, s.end_ts, (SELECT ts_ms FROM log_end) AS log_end_ms, :stranding_window_ms AS window_ms,
  json_array(s.id,
    CASE WHEN s.how = 'no-position' THEN s.opened_id END,
    CASE WHEN s.after_close OR s.how = 'no-position' THEN s.closed_id END,
    CASE WHEN s.how = 'session-ended' THEN s.end_id END) AS evidence
FROM (
  SELECT settled.*,
    CASE
      WHEN session IS NULL THEN 'stateless'
      WHEN NOT held THEN 'no-position'
      WHEN end_id IS NOT NULL THEN 'session-ended'
      WHEN (SELECT ts_ms FROM log_end) < ts_ms + :stranding_window_ms THEN 'pending'
      ELSE 'never-resumed'
    END AS how
  FROM settled WHERE NOT rescued) s
ORDER BY s.ts_ms, s.id;
