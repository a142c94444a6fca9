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
), keyed AS MATERIALIZED (
  -- the executions a retry can be recognised by: principal, tool and arguments known
  SELECT id, ts_ms, session, principal, tool, args_hash,
    row_number() OVER (PARTITION BY principal, tool, args_hash ORDER BY ts_ms, id) AS r
  FROM attributed WHERE principal IS NOT NULL AND tool IS NOT NULL AND args_hash IS NOT NULL
), not_found AS MATERIALIZED (
  SELECT x.id, x.ts_ms, COALESCE(x.principal,
    (SELECT r.principal FROM records r
     WHERE r.session = COALESCE(x.session, json_extract(x.req_headers, '$."mcp-session-id"'))
       AND r.principal IS NOT NULL AND r.shadowed = 0 ORDER BY r.ts_ms, r.id LIMIT 1)) AS principal
  FROM records x
  WHERE x.shadowed = 0 AND x.status = 404 AND (
    (x.kind = 'http' AND upper(x.http_method) = 'POST')
    OR (x.origin = 'server' AND x.kind IN ('call', 'request.answered')))
), marker_stream AS MATERIALIZED (
  -- what happens between two executions, merged with the executions in log order, in two scopes:
  -- 'principal' (a POST of it got 404, a session was created for it) and 'session' (the execution's
  -- session ended, or a fresh upgrade replaced it)
  SELECT scope, key, ts_ms, id, how, a_id, row_number() OVER (PARTITION BY scope, key ORDER BY ts_ms, id) AS n FROM (
    SELECT 'principal' AS scope, principal AS key, ts_ms, id, '404' AS how, NULL AS a_id FROM not_found WHERE principal IS NOT NULL
    UNION ALL SELECT 'principal', owner, created_ts, created_id, 'new-session', NULL FROM incarnations WHERE owner IS NOT NULL
    UNION ALL SELECT 'principal', principal, ts_ms, id, NULL, id FROM keyed
    UNION ALL SELECT 'session', x.session, x.ts_ms, x.id, CASE x.kind WHEN 'upgrade' THEN 'replaced' ELSE 'ended' END, NULL FROM records x
    WHERE x.session IS NOT NULL AND x.shadowed = 0
      AND (x.kind IN ('session.terminated', 'session.evicted') OR (x.kind = 'upgrade' AND x.decision = 'fresh' AND x.status BETWEEN 200 AND 299))
    UNION ALL SELECT 'session', session, ts_ms, id, NULL, id FROM keyed)
), marker_next AS (
  -- per execution and scope: the position of the first marker after it
  SELECT a_id, scope, key, next_n FROM (
    SELECT a_id, scope, key,
      min(CASE WHEN how IS NOT NULL THEN n END) OVER (PARTITION BY scope, key ORDER BY ts_ms, id GROUPS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS next_n
    FROM marker_stream)
  WHERE a_id IS NOT NULL AND next_n IS NOT NULL
), activated AS MATERIALIZED (
  -- the first thing after an execution that makes a later identical one a retry: every later one after it is
  SELECT k.principal, k.tool, k.args_hash, k.r, k.ts_ms AS first_ts, k.id AS first_id,
    CASE WHEN e.id IS NULL OR (p.id IS NOT NULL AND (p.ts_ms, p.id) < (e.ts_ms, e.id)) THEN p.id ELSE e.id END AS between_id,
    CASE WHEN e.id IS NULL OR (p.id IS NOT NULL AND (p.ts_ms, p.id) < (e.ts_ms, e.id)) THEN p.ts_ms ELSE e.ts_ms END AS between_ts,
    CASE WHEN e.id IS NULL OR (p.id IS NOT NULL AND (p.ts_ms, p.id) < (e.ts_ms, e.id)) THEN p.how ELSE e.how END AS how
  FROM keyed k
  LEFT JOIN marker_next pn ON pn.a_id = k.id AND pn.scope = 'principal'
  LEFT JOIN marker_stream p ON p.scope = 'principal' AND p.key = pn.key AND p.n = pn.next_n AND p.how IS NOT NULL
  LEFT JOIN marker_next sn ON sn.a_id = k.id AND sn.scope = 'session'
  LEFT JOIN marker_stream e ON e.scope = 'session' AND e.key = sn.key AND e.n = sn.next_n AND e.how IS NOT NULL
  WHERE p.id IS NOT NULL OR e.id IS NOT NULL
), sweep AS (
  -- per call: the latest earlier execution activated before it (the nearest one with something between)
  SELECT b_id, a_r FROM (
    SELECT b_id, max(a_r) OVER (PARTITION BY principal, tool, args_hash ORDER BY ts_ms, id GROUPS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS a_r
    FROM (
      SELECT principal, tool, args_hash, between_ts AS ts_ms, between_id AS id, r AS a_r, NULL AS b_id FROM activated
      UNION ALL
      SELECT principal, tool, args_hash, ts_ms, id, NULL, id FROM keyed WHERE id NOT IN (SELECT later_id FROM same_rpc)))
  WHERE b_id IS NOT NULL AND a_r IS NOT NULL
), retries AS (
  SELECT b.id AS later_id, a.first_id, a.between_id, a.how
  FROM sweep s
  JOIN keyed b ON b.id = s.b_id
  JOIN activated a ON a.principal = b.principal AND a.tool = b.tool AND a.args_hash = b.args_hash AND a.r = s.a_r
  WHERE b.ts_ms - a.first_ts <= :duplicate_call_window_ms
), found AS (
  SELECT later_id, first_id, between_id, how FROM same_rpc WHERE k = 1
  UNION ALL
  SELECT later_id, first_id, between_id, how FROM retries
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
