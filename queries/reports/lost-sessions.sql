-- Which sessions did a node lose without a log line saying so: answered 404 by the node that created them, which never logged their end (a restart or an eviction the log does not show), or by another node after it fell silent (a crash, or a restart under a new node name)?
-- One row per lost session: the node that lost it, the node that answered its first 404, the session's last record
-- on the losing node before that 404 (the node still knew it then: it lost the session in between), that first 404,
-- and how many 404s (reconnects, calls, answers to its requests) the session got. The report groups a node's rows
-- into one loss where their first 404s follow each other within a minute (detect/node-losses.ts).
-- Without --shared-session-store, a 404 from a node that did not create the session counts only once the creating
-- node has logged nothing more: while it logs, the other node's 404 says where the request went, not that the session
-- is gone. A node that logs its process id in its name (host/pid) is such a node after a restart. With
-- --shared-session-store any node may answer for a session, and the one that answered 404 lost it.
WITH node_last AS MATERIALIZED (
  -- each node's last server record, of all its sources (counted as they were stored: no scan of the records)
  SELECT node, last_ms, last_id FROM node_totals WHERE last_ms IS NOT NULL
), not_found AS MATERIALIZED (
  SELECT id, ts_ms, session, answered_by, created_on, CASE WHEN :shared_session_store THEN answered_by ELSE created_on END AS node
  FROM (
    -- one scan: the rows of these kinds through records_kind are a random read each, 404 or not (1M lines: 0.45 s, 0.23 s)
    SELECT u.id, u.ts_ms, u.session, u.node AS answered_by, live.node AS created_on, live.ended_ts
    FROM records u NOT INDEXED
    -- the session's latest creation up to the 404, not ended before it
    JOIN incarnations live ON live.created_id = (
      SELECT i.created_id FROM incarnations i
      WHERE i.session = u.session AND (i.created_ts, i.created_id) < (u.ts_ms, u.id)
      ORDER BY i.created_ts DESC, i.created_id DESC LIMIT 1)
    WHERE u.kind IN ('upgrade', 'call', 'request.answered') AND u.status = 404
      AND u.origin = 'server' AND u.shadowed = 0 AND u.session IS NOT NULL)
  WHERE (ended_ts IS NULL OR ended_ts > ts_ms)
    AND (answered_by IS created_on OR :shared_session_store
      OR (SELECT n.last_ms FROM node_last n WHERE n.node IS created_on) < ts_ms)
), first_404 AS (
  SELECT session, node, answered_by, created_on, id, ts_ms, not_found FROM (
    SELECT session, node, answered_by, created_on, id, ts_ms, count(*) OVER (PARTITION BY session, node) AS not_found,
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
SELECT l.node, l.session, l.answered_by,
  strftime('%Y-%m-%dT%H:%M:%fZ', seen.ts_ms / 1000.0, 'unixepoch') AS last_seen,
  strftime('%Y-%m-%dT%H:%M:%fZ', l.ts_ms / 1000.0, 'unixepoch') AS first_404,
  l.not_found,
  s.name || ':' || u.line AS source,
  l.last_seen_id, seen.ts_ms AS last_seen_ms, l.id AS first_404_id, l.ts_ms AS first_404_ms,
  -- the node that created the session, and the one that logged its last record before the 404: with
  -- --shared-session-store, other nodes than the one charged with the loss, which the report names as they are
  l.created_on, seen.node AS last_seen_node,
  -- where another node answered: the losing node's last record of all, after which it logged nothing
  silent.last_id AS node_last_id, silent.last_ms AS node_last_ms
-- CROSS JOIN: the lost sessions drive (joined as equals, the planner read every record of the source to find them)
FROM lost l
CROSS JOIN records u ON u.id = l.id
CROSS JOIN sources s ON s.id = u.source_id
LEFT JOIN records seen ON seen.id = l.last_seen_id
LEFT JOIN node_last silent ON l.answered_by IS NOT l.node AND silent.node IS l.node
ORDER BY l.node, l.ts_ms, l.id;
