-- Which sessions had reconnects rejected while a stale stream stayed unfenced past the fence grace period?
-- Rejected as conflicts while an earlier stream was registered, and that stream was neither closed nor fenced
-- within :fence_grace_ms (default 5000) after the first such rejection.
-- A conflict: a rejected upgrade with status 409 (other than for an unavailable window or unknown session), or a
-- reason naming a conflict. Registered: opened before the rejection (GET, or the stream the reconnect names),
-- not closed, fenced or ended with its session before it. still_open_at_log_end = 1 with the log ending inside
-- the grace period cannot be judged yet. Evidence: the stale stream's opening, the first rejection, its late end
-- (reject_ids: every rejection, which the message counts, so the finding cites them all).
-- The conflicts drive the join (MATERIALIZED, CROSS JOIN): driven by the streams, each stream read every later
-- record of its session for upgrades, quadratic in a session thousands of reconnects long.
-- The ends of sessions, set apart and indexed: looked up among a session's records, each (conflict, stream) read
-- its session from the stream's opening, or from the conflict to the session's end.
CREATE TEMP TABLE session_ends AS
SELECT id, ts_ms, session FROM records WHERE kind IN ('session.terminated', 'session.evicted') AND shadowed = 0;
CREATE INDEX temp.session_ends_at ON session_ends (session, ts_ms, id);

WITH conflicts AS MATERIALIZED (
  SELECT u.* FROM upgrades u
  WHERE u.session IS NOT NULL AND (u.decision = 'reject' OR u.status NOT BETWEEN 200 AND 299)
    AND (
      (u.status = 409 AND COALESCE(lower(u.reason), '') NOT IN ('resumption_unavailable', 'session_not_found', 'unknown_session'))
      OR lower(u.reason) LIKE '%conflict%' OR lower(u.reason) LIKE '%writer%' OR lower(u.reason) LIKE '%already%'
    )
), blocked AS (
  SELECT c.id AS reject_id, c.ts_ms AS reject_ts, c.status, c.reason, c.last_event_id, s.session, s.stream, s.via, s.opened_id, s.opened_ts,
    -- when the stale stream finally ended: closed, fenced, or its session ended
    NULLIF(min(COALESCE(s.closed_ts, 9223372036854775807), COALESCE(s.fenced_ts, 9223372036854775807),
      COALESCE((SELECT x.ts_ms FROM session_ends x WHERE x.session = s.session AND (x.ts_ms, x.id) > (c.ts_ms, c.id)
         ORDER BY x.ts_ms, x.id LIMIT 1), 9223372036854775807)), 9223372036854775807) AS ended_ts,
    row_number() OVER (PARTITION BY s.session, s.stream ORDER BY c.ts_ms, c.id) AS k
  FROM conflicts c
  CROSS JOIN streams s ON s.session = c.session AND s.opened_id IS NOT NULL
    AND (s.opened_ts, s.opened_id) < (c.ts_ms, c.id)
    AND (s.via IS NOT 'post' OR s.stream IS c.stream)
    AND (s.closed_id IS NULL OR (s.closed_ts, s.closed_id) > (c.ts_ms, c.id))
    AND (s.fenced_id IS NULL OR (s.fenced_ts, s.fenced_id) > (c.ts_ms, c.id))
  WHERE NOT EXISTS (
    SELECT 1 FROM session_ends x WHERE x.session = s.session
      AND (x.ts_ms, x.id) > (s.opened_ts, s.opened_id) AND (x.ts_ms, x.id) < (c.ts_ms, c.id))
), per_stream AS (
  -- an aggregate per stream, not a window over it: a window's whole-partition list is copied into every row
  SELECT session, stream, count(*) AS rejections, json_group_array(reject_id ORDER BY reject_ts, reject_id) AS reject_ids
  FROM blocked GROUP BY session, stream
), log_end AS (SELECT max(ts_ms) AS ts_ms FROM records)
SELECT b.session, b.reject_ts AS at_ms, b.stream, b.via, b.opened_ts, b.status, b.reason, b.last_event_id, p.rejections,
  b.ended_ts, :fence_grace_ms AS grace_ms,
  (b.ended_ts IS NULL AND (SELECT ts_ms FROM log_end) < b.reject_ts + :fence_grace_ms) AS still_open_at_log_end,
  json_array(b.opened_id, b.reject_id,
    (SELECT s.closed_id FROM streams s WHERE s.session = b.session AND s.stream = b.stream AND s.closed_ts = b.ended_ts),
    (SELECT s.fenced_id FROM streams s WHERE s.session = b.session AND s.stream = b.stream AND s.fenced_ts = b.ended_ts),
    (SELECT min(x.id) FROM session_ends x WHERE x.session = b.session AND x.ts_ms = b.ended_ts)) AS evidence, p.reject_ids
FROM blocked b
JOIN per_stream p ON p.session = b.session AND p.stream = b.stream
WHERE b.k = 1 AND (b.ended_ts IS NULL OR b.ended_ts > b.reject_ts + :fence_grace_ms)
ORDER BY b.reject_ts, b.reject_id;
