-- Which sessions had reconnects rejected while a stale stream stayed unfenced past the fence grace period?
-- Rejected as conflicts while an earlier stream was registered, and that stream was neither closed nor fenced
-- within :fence_grace_ms (default 5000) after the first such rejection.
-- A conflict: a rejected upgrade with status 409 (other than for an unavailable window or unknown session), or a
-- reason naming a conflict. Registered: opened before the rejection (GET, or the stream the reconnect names),
-- not closed, fenced or ended with its session before it. still_open_at_log_end = 1 with the log ending inside
-- the grace period cannot be judged yet. Evidence: the stale stream's opening, the first rejection, its late end
-- (reject_ids: every rejection, which the message counts, so the finding cites them all).
-- Each stream drives: the conflicts it blocks lie in its registered life, from its opening to the first of its
-- close, its fence and its session's end (a POST stream's, only those naming it), one range of an index. Driven
-- by the conflicts, each read every stream of its session opened before it: quadratic where a session refused
-- thousands of resumptions and opened a stream for each (the client attaching instead).
CREATE TEMP TABLE session_ends AS
SELECT id, ts_ms, session FROM records WHERE kind IN ('session.terminated', 'session.evicted') AND shadowed = 0;
CREATE INDEX temp.session_ends_at ON session_ends (session, ts_ms, id);
CREATE TEMP TABLE conflicts AS
SELECT u.id, u.ts_ms, u.session, u.stream, u.status, u.reason, u.last_event_id FROM upgrades u
WHERE u.session IS NOT NULL AND (u.decision = 'reject' OR u.status NOT BETWEEN 200 AND 299)
  AND (
    (u.status = 409 AND COALESCE(lower(u.reason), '') NOT IN ('resumption_unavailable', 'session_not_found', 'unknown_session'))
    OR lower(u.reason) LIKE '%conflict%' OR lower(u.reason) LIKE '%writer%' OR lower(u.reason) LIKE '%already%'
  );
CREATE INDEX temp.conflicts_at ON conflicts (session, ts_ms, id);
CREATE INDEX temp.conflicts_of_stream ON conflicts (session, stream, ts_ms, id);

WITH lives AS MATERIALIZED (
  -- a stream's registered life ends at the first of its close, its fence and its session's end after it opened
  SELECT s.session, s.stream, s.via, s.opened_id, s.opened_ts, s.closed_ts, s.closed_id, s.fenced_ts, s.fenced_id,
    (SELECT x.ts_ms FROM session_ends x WHERE x.session = s.session AND (x.ts_ms, x.id) > (s.opened_ts, s.opened_id)
     ORDER BY x.ts_ms, x.id LIMIT 1) AS end_ts,
    (SELECT x.id FROM session_ends x WHERE x.session = s.session AND (x.ts_ms, x.id) > (s.opened_ts, s.opened_id)
     ORDER BY x.ts_ms, x.id LIMIT 1) AS end_id
  FROM streams s WHERE s.opened_id IS NOT NULL
), retired AS (
  SELECT *,
    CASE WHEN fenced_id IS NULL OR (closed_id IS NOT NULL AND (closed_ts, closed_id) < (fenced_ts, fenced_id)) THEN closed_ts ELSE fenced_ts END AS r1_ts,
    CASE WHEN fenced_id IS NULL OR (closed_id IS NOT NULL AND (closed_ts, closed_id) < (fenced_ts, fenced_id)) THEN closed_id ELSE fenced_id END AS r1_id
  FROM lives
), bounded AS (
  SELECT *,
    CASE WHEN end_id IS NULL OR (r1_id IS NOT NULL AND (r1_ts, r1_id) < (end_ts, end_id)) THEN r1_ts ELSE end_ts END AS until_ts,
    CASE WHEN end_id IS NULL OR (r1_id IS NOT NULL AND (r1_ts, r1_id) < (end_ts, end_id)) THEN r1_id ELSE end_id END AS until_id,
    -- when the stale stream finally ended: closed, fenced, or its session ended
    NULLIF(min(COALESCE(closed_ts, 9223372036854775807), COALESCE(fenced_ts, 9223372036854775807), COALESCE(end_ts, 9223372036854775807)),
      9223372036854775807) AS ended_ts
  FROM retired
), pairs AS (
  SELECT c.id AS reject_id, c.ts_ms AS reject_ts, c.status, c.reason, c.last_event_id, l.session, l.stream, l.via, l.opened_id, l.opened_ts, l.ended_ts
  FROM bounded l
  CROSS JOIN conflicts c ON c.session = l.session AND c.ts_ms BETWEEN l.opened_ts AND COALESCE(l.until_ts, 9223372036854775807)
  WHERE l.via IS NOT 'post' AND (c.ts_ms, c.id) > (l.opened_ts, l.opened_id) AND (l.until_id IS NULL OR (c.ts_ms, c.id) < (l.until_ts, l.until_id))
  UNION ALL
  SELECT c.id, c.ts_ms, c.status, c.reason, c.last_event_id, l.session, l.stream, l.via, l.opened_id, l.opened_ts, l.ended_ts
  FROM bounded l
  CROSS JOIN conflicts c ON c.session = l.session AND c.stream = l.stream AND c.ts_ms BETWEEN l.opened_ts AND COALESCE(l.until_ts, 9223372036854775807)
  WHERE l.via = 'post' AND (c.ts_ms, c.id) > (l.opened_ts, l.opened_id) AND (l.until_id IS NULL OR (c.ts_ms, c.id) < (l.until_ts, l.until_id))
), blocked AS (
  SELECT *, row_number() OVER (PARTITION BY session, stream ORDER BY reject_ts, reject_id) AS k FROM pairs
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
