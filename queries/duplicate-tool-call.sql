-- Which tools/call requests were executed twice for one client?
-- Executed: executed = 1, or not logged and a 2xx status (executed = 0 was deduplicated by the server).
-- Twice: the same rpc_id again in the same session (for the same tool and arguments, where logged), or the same tool and args_hash again by the same principal
-- within :duplicate_call_window_ms (default 60000) where in between a POST of that principal got 404, or the first
-- execution's session ended or was replaced (a fresh upgrade presenting it, a new session created for that principal).
-- The row names the session of the later execution. Evidence: first execution, what happened between, the later one.
-- A call a proxy saw that the server logged too is shadowed (derive), with or without `req`.
WITH execs AS (
  SELECT c.id, c.ts_ms, c.session, c.origin, c.rpc_id, c.tool, c.args_hash, c.principal AS own_principal,
    (SELECT i.created_id FROM incarnations i
     WHERE i.session = c.session AND (i.created_ts, i.created_id) < (c.ts_ms, c.id)
     ORDER BY i.created_ts DESC, i.created_id DESC LIMIT 1) AS created_id
  FROM calls c
  WHERE c.method = 'tools/call' AND c.session IS NOT NULL AND COALESCE(c.executed, c.status BETWEEN 200 AND 299) = 1
), attributed AS MATERIALIZED (
  -- whose call: its own principal, else the owner of its session
  SELECT e.*, COALESCE(e.own_principal, i.owner,
    (SELECT r.principal FROM records r WHERE r.session = e.session AND r.principal IS NOT NULL AND r.shadowed = 0
     ORDER BY r.ts_ms, r.id LIMIT 1)) AS principal
  FROM execs e LEFT JOIN incarnations i ON i.created_id = e.created_id
), same_rpc AS MATERIALIZED (
  SELECT b.id AS later_id, a.id AS first_id, NULL AS between_id, 'same-rpc' AS how,
    row_number() OVER (PARTITION BY b.id ORDER BY a.ts_ms, a.id) AS k
  FROM attributed a
  JOIN attributed b ON b.session = a.session AND b.rpc_id = a.rpc_id AND b.created_id IS a.created_id
    AND (b.ts_ms, b.id) > (a.ts_ms, a.id)
    -- one call: an rpc id a restarted client reuses for another tool or other arguments is another call
    AND (a.tool IS NULL OR b.tool IS NULL OR a.tool = b.tool) AND (a.args_hash IS NULL OR b.args_hash IS NULL OR a.args_hash = b.args_hash)
), pairs AS MATERIALIZED (
  SELECT a.id AS first_id, a.ts_ms AS first_ts, a.session AS first_session, b.id AS later_id, b.ts_ms AS later_ts, b.principal
  FROM attributed a
  JOIN attributed b ON b.principal = a.principal AND b.tool = a.tool AND b.args_hash = a.args_hash
    AND (b.ts_ms, b.id) > (a.ts_ms, a.id) AND b.ts_ms - a.ts_ms <= :duplicate_call_window_ms
  WHERE a.principal IS NOT NULL AND a.tool IS NOT NULL AND a.args_hash IS NOT NULL
    AND b.id NOT IN (SELECT later_id FROM same_rpc)
), not_found AS MATERIALIZED (
  SELECT x.id, x.ts_ms, COALESCE(x.principal,
    (SELECT r.principal FROM records r
     WHERE r.session = COALESCE(x.session, json_extract(x.req_headers, '$."mcp-session-id"'))
       AND r.principal IS NOT NULL AND r.shadowed = 0 ORDER BY r.ts_ms, r.id LIMIT 1)) AS principal
  FROM records x
  WHERE x.shadowed = 0 AND x.status = 404 AND (
    (x.kind = 'http' AND upper(x.http_method) = 'POST')
    OR (x.origin = 'server' AND x.kind IN ('call', 'request.answered')))
), between_them AS (
  SELECT p.*, t.id AS between_id, t.ts_ms AS between_ts, '404' AS how FROM pairs p
  JOIN not_found t ON t.principal = p.principal AND (t.ts_ms, t.id) > (p.first_ts, p.first_id) AND (t.ts_ms, t.id) < (p.later_ts, p.later_id)
  UNION ALL
  SELECT p.*, x.id, x.ts_ms, CASE x.kind WHEN 'upgrade' THEN 'replaced' ELSE 'ended' END FROM pairs p
  JOIN records x ON x.session = p.first_session AND x.shadowed = 0
    AND (x.kind IN ('session.terminated', 'session.evicted') OR (x.kind = 'upgrade' AND x.decision = 'fresh' AND x.status BETWEEN 200 AND 299))
    AND (x.ts_ms, x.id) > (p.first_ts, p.first_id) AND (x.ts_ms, x.id) < (p.later_ts, p.later_id)
  UNION ALL
  SELECT p.*, i.created_id, i.created_ts, 'new-session' FROM pairs p
  JOIN incarnations i ON i.owner = p.principal AND (i.created_ts, i.created_id) > (p.first_ts, p.first_id) AND (i.created_ts, i.created_id) < (p.later_ts, p.later_id)
), retries AS (
  -- the nearest earlier execution, and the first thing between the two
  SELECT later_id, first_id, between_id, how,
    row_number() OVER (PARTITION BY later_id ORDER BY first_ts DESC, first_id DESC, between_ts, between_id) AS k
  FROM between_them
), found AS (
  SELECT later_id, first_id, between_id, how FROM same_rpc WHERE k = 1
  UNION ALL
  SELECT later_id, first_id, between_id, how FROM retries WHERE k = 1
)
SELECT b.session, b.ts_ms AS at_ms, f.how, b.tool, b.rpc_id, b.principal,
  a.session AS first_session, a.rpc_id AS first_rpc_id, a.ts_ms AS first_ms,
  -- a proxy sees a 2xx, not whether the server executed the call or answered a duplicate from its cache
  (a.origin = 'proxy' OR b.origin = 'proxy') AS proxy_seen,
  x.kind AS between_kind, x.status AS between_status, x.session AS between_session, x.ts_ms AS between_ms,
  json_array(f.first_id, f.between_id, f.later_id) AS evidence
FROM found f
JOIN attributed b ON b.id = f.later_id
JOIN attributed a ON a.id = f.first_id
LEFT JOIN records x ON x.id = f.between_id
ORDER BY b.ts_ms, b.id;
