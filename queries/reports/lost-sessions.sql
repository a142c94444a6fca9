-- Which sessions did a node lose without a log line saying so: answered 404 by the node that created them, which never logged their end (a restart or an eviction the log does not show)?
-- One row per lost session: the node, the session's last record on that node before its first such 404 (the node
-- still knew it then: it lost the session in between), that first 404, and how many 404s (reconnects, calls, answers
-- to its requests) the session got from the node. The report groups a node's rows into one loss where their first
-- 404s follow each other within a minute (detect/node-losses.ts). A session created on another node counts only with
-- --shared-session-store, where any node may answer for it.
WITH not_found AS MATERIALIZED (
  -- one scan: the rows of these kinds through records_kind are a random read each, 404 or not (1M lines: 0.45 s, 0.23 s)
  SELECT u.id, u.ts_ms, u.session, u.node
  FROM records u NOT INDEXED
  WHERE u.kind IN ('upgrade', 'call', 'request.answered') AND u.status = 404
    AND u.origin = 'server' AND u.shadowed = 0 AND u.session IS NOT NULL
    -- the session's latest creation up to the 404: made where the 404 was answered, and not ended before it
    AND EXISTS (
      SELECT 1 FROM incarnations live
      WHERE live.created_id = (
          SELECT i.created_id FROM incarnations i
          WHERE i.session = u.session AND (i.created_ts, i.created_id) < (u.ts_ms, u.id)
          ORDER BY i.created_ts DESC, i.created_id DESC LIMIT 1)
        AND (live.node IS u.node OR :shared_session_store) AND (live.ended_ts IS NULL OR live.ended_ts > u.ts_ms))
), first_404 AS (
  SELECT session, node, id, ts_ms, not_found FROM (
    SELECT session, node, id, ts_ms, count(*) OVER (PARTITION BY session, node) AS not_found,
      row_number() OVER (PARTITION BY session, node ORDER BY ts_ms, id) AS rn
    FROM not_found)
  WHERE rn = 1
), lost AS MATERIALIZED (
  SELECT f.*,
    (SELECT r.id FROM records r
     WHERE r.session = f.session AND (r.ts_ms, r.id) < (f.ts_ms, f.id) AND r.origin = 'server' AND (r.node IS f.node OR :shared_session_store)
     ORDER BY r.ts_ms DESC, r.id DESC LIMIT 1) AS last_seen_id
  FROM first_404 f
)
SELECT l.node, l.session,
  strftime('%Y-%m-%dT%H:%M:%fZ', seen.ts_ms / 1000.0, 'unixepoch') AS last_seen,
  strftime('%Y-%m-%dT%H:%M:%fZ', l.ts_ms / 1000.0, 'unixepoch') AS first_404,
  l.not_found,
  s.name || ':' || u.line AS source,
  l.last_seen_id, seen.ts_ms AS last_seen_ms, l.id AS first_404_id, l.ts_ms AS first_404_ms
FROM lost l
LEFT JOIN records seen ON seen.id = l.last_seen_id
JOIN records u ON u.id = l.id
JOIN sources s ON s.id = u.source_id
ORDER BY l.node, l.ts_ms, l.id;
