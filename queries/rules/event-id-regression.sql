-- Which event ids were emitted twice under one session id (one row per session and lane that re-used ids)? Half the rule: a replay that went backwards is in analyze --rule event-id-regression.
-- Ids must be unique per session, across its streams and incarnations.
-- The rule's other clause, a replay that went back to or before Last-Event-ID, is not in this query: it is
-- judged in src/detect/rules/event-id-regression.ts from reconnect-references (analyze --rule event-id-regression).
WITH reused AS MATERIALIZED (
  -- grouped straight off the (session, event_id) index: only re-used ids are ordered below. A stale header is no
  -- session (the stale_session_ids view: an id only stateless-era requests presented and no server answered
  -- with): each such request numbers its own stream's events, which resume nothing. (The view is read once, and
  -- only where an id was re-used: its cost is a walk of every stateless-era record.)
  SELECT session, event_id FROM events GROUP BY session, event_id
  HAVING count(*) > 1 AND session NOT IN (SELECT session FROM stale_session_ids)
), emission AS (
  SELECT e.id, e.session, e.lane, e.stream, e.event_id, e.ts_ms,
    row_number() OVER (PARTITION BY e.session, e.event_id ORDER BY e.ts_ms, e.id) AS nth,
    first_value(e.id) OVER (PARTITION BY e.session, e.event_id ORDER BY e.ts_ms, e.id) AS first_id
  FROM reused r JOIN events e ON e.session = r.session AND e.event_id = r.event_id
  -- A JSON-RPC batch (2025-03-26: "These responses MAY be batched") is one SSE event carrying several
  -- messages, logged as one event.sent per message: the same id on the same stream at the same time, each
  -- with its own rpc_id. It is one emission, not a restarted sequence (a fork restarts ids on another stream
  -- or incarnation): its first line stands for it, the others are left out.
  WHERE NOT EXISTS (
    SELECT 1 FROM events b JOIN records br ON br.id = b.id JOIN records er ON er.id = e.id
    WHERE b.session = e.session AND b.event_id = e.event_id AND b.ts_ms = e.ts_ms AND b.id < e.id
      AND b.stream = e.stream AND br.rpc_id <> er.rpc_id)
), each_again AS (
  -- every emission after an id's first (a lane that sends an id a third time restarted its sequence too),
  -- each id counted once per lane
  SELECT a.*, row_number() OVER (PARTITION BY a.session, a.lane, a.event_id ORDER BY a.ts_ms, a.id) AS on_lane
  FROM emission a WHERE a.nth >= 2
), again AS (
  SELECT a.*, row_number() OVER (PARTITION BY a.session, a.lane ORDER BY a.ts_ms, a.id) AS k
  FROM each_again a WHERE a.on_lane = 1
), per_lane AS (
  SELECT session, lane, count(*) AS reused, group_concat(event_id, ', ') AS reused_ids
  FROM (SELECT * FROM again ORDER BY ts_ms, id) GROUP BY session, lane
)
SELECT a.session, a.ts_ms AS at_ms, a.event_id, a.nth, a.stream, f.stream AS first_stream, f.ts_ms AS first_ts,
  g.reused, g.reused_ids, json_array(f.id, a.id) AS evidence
FROM again a
JOIN per_lane g ON g.session = a.session AND g.lane = a.lane
JOIN events f ON f.id = a.first_id
WHERE a.k = 1
ORDER BY a.ts_ms, a.id;
