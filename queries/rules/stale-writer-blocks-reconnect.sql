-- Which sessions had reconnects rejected while a stale stream stayed unfenced past the fence grace period?
-- Rejected as conflicts while an earlier stream was registered, and that stream was neither closed nor fenced
-- within :fence_grace_ms (default 5000) after the first such rejection.
-- A conflict: a rejected upgrade with status 409 (other than for an unavailable window or unknown session), or a
-- reason naming a conflict. Registered: opened before the rejection (GET, or the stream the reconnect names),
-- not closed, fenced or ended with its session before it. still_open_at_log_end = 1 with the log ending inside
-- the grace period cannot be judged yet. Evidence: the stale stream's opening, the first rejection, its late end
-- (reject_ids: the rejections in order, the first :cited_rejections of them; rejections counts them all).
-- Each stream drives: the conflicts it blocks lie in its registered life, from its opening to the first of its
-- close, its fence and its session's end (a POST stream's, only those naming it), one range of an index. Driven
-- by the conflicts, each read every stream of its session opened before it: quadratic where a session refused
-- thousands of resumptions and opened a stream for each (the client attaching instead). A stream's first
-- conflict, its count and the ones cited are each one range of the conflicts' indexes.
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
), firsts AS (
  -- a stream's first blocked conflict: in its registered life, any of its session's (a POST stream's: one naming it)
  SELECT l.session, l.stream, l.via, l.opened_id, l.opened_ts, l.ended_ts, l.until_ts, l.until_id,
    c.id AS reject_id, c.ts_ms AS reject_ts, c.status, c.reason, c.last_event_id
  FROM bounded l
  JOIN conflicts c ON c.id = CASE WHEN l.via IS NOT 'post' THEN
    (SELECT c.id FROM conflicts c
     WHERE c.session = l.session AND c.ts_ms BETWEEN l.opened_ts AND COALESCE(l.until_ts, 9223372036854775807)
       AND (c.ts_ms, c.id) > (l.opened_ts, l.opened_id) AND (l.until_id IS NULL OR (c.ts_ms, c.id) < (l.until_ts, l.until_id))
     ORDER BY c.ts_ms, c.id LIMIT 1)
  ELSE
    (SELECT c.id FROM conflicts c
     WHERE c.session = l.session AND c.stream = l.stream AND c.ts_ms BETWEEN l.opened_ts AND COALESCE(l.until_ts, 9223372036854775807)
       AND (c.ts_ms, c.id) > (l.opened_ts, l.opened_id) AND (l.until_id IS NULL OR (c.ts_ms, c.id) < (l.until_ts, l.until_id))
     ORDER BY c.ts_ms, c.id LIMIT 1)
  END
), log_end AS (SELECT max(ts_ms) AS ts_ms FROM records)
-- Counted in full, cited up to :cited_rejections (the message says how many): a server that never retires
-- a stream and refuses every reconnect makes each stream block every later one, and citing them all made
-- the report grow with the square of the log (30k lines: 2.4M citations, 227 MB of JSON).
SELECT f.session, f.reject_ts AS at_ms, f.stream, f.via, f.opened_ts, f.status, f.reason, f.last_event_id,
  CASE WHEN f.via IS NOT 'post' THEN
    (SELECT count(*) FROM conflicts c
     WHERE c.session = f.session AND c.ts_ms BETWEEN f.opened_ts AND COALESCE(f.until_ts, 9223372036854775807)
       AND (c.ts_ms, c.id) > (f.opened_ts, f.opened_id) AND (f.until_id IS NULL OR (c.ts_ms, c.id) < (f.until_ts, f.until_id)))
  ELSE
    (SELECT count(*) FROM conflicts c
     WHERE c.session = f.session AND c.stream = f.stream AND c.ts_ms BETWEEN f.opened_ts AND COALESCE(f.until_ts, 9223372036854775807)
       AND (c.ts_ms, c.id) > (f.opened_ts, f.opened_id) AND (f.until_id IS NULL OR (c.ts_ms, c.id) < (f.until_ts, f.until_id)))
  END AS rejections,
  f.ended_ts, :fence_grace_ms AS grace_ms,
  (f.ended_ts IS NULL AND (SELECT ts_ms FROM log_end) < f.reject_ts + :fence_grace_ms) AS still_open_at_log_end,
  json_array(f.opened_id, f.reject_id,
    (SELECT s.closed_id FROM streams s WHERE s.session = f.session AND s.stream = f.stream AND s.closed_ts = f.ended_ts),
    (SELECT s.fenced_id FROM streams s WHERE s.session = f.session AND s.stream = f.stream AND s.fenced_ts = f.ended_ts),
    (SELECT min(x.id) FROM session_ends x WHERE x.session = f.session AND x.ts_ms = f.ended_ts)) AS evidence,
  CASE WHEN f.via IS NOT 'post' THEN
    (SELECT json_group_array(id) FROM (SELECT c.id FROM conflicts c
     WHERE c.session = f.session AND c.ts_ms BETWEEN f.opened_ts AND COALESCE(f.until_ts, 9223372036854775807)
       AND (c.ts_ms, c.id) > (f.opened_ts, f.opened_id) AND (f.until_id IS NULL OR (c.ts_ms, c.id) < (f.until_ts, f.until_id))
     ORDER BY c.ts_ms, c.id LIMIT :cited_rejections))
  ELSE
    (SELECT json_group_array(id) FROM (SELECT c.id FROM conflicts c
     WHERE c.session = f.session AND c.stream = f.stream AND c.ts_ms BETWEEN f.opened_ts AND COALESCE(f.until_ts, 9223372036854775807)
       AND (c.ts_ms, c.id) > (f.opened_ts, f.opened_id) AND (f.until_id IS NULL OR (c.ts_ms, c.id) < (f.until_ts, f.until_id))
     ORDER BY c.ts_ms, c.id LIMIT :cited_rejections))
  END AS reject_ids
FROM firsts f
WHERE f.ended_ts IS NULL OR f.ended_ts > f.reject_ts + :fence_grace_ms
ORDER BY f.reject_ts, f.reject_id;
