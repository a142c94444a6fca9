-- Which tools/call executions with a session, by tool and arguments in log order, have no principal logged (on the
-- call, nor as its session's first)? Every execution is a row; `unattributed` says which.
-- duplicate-tool-call reads it in one pass per tool and arguments: a retry from another session is recognised by
-- its principal, so executions alike within :duplicate_call_window_ms (applied in the module) whose principal is
-- unknown cannot be attributed to one client.
-- Moved unchanged from src/detect/rules/duplicate-tool-call.ts: its CTEs are still MATERIALIZED, not staged as
-- TEMP tables (store/queries.ts says why a query whose intermediate results grow with the log is staged).
WITH execs AS MATERIALIZED (
  SELECT c.id, c.ts_ms, c.session, c.tool, c.args_hash, c.principal
  FROM calls c
  WHERE c.method = 'tools/call' AND c.session IS NOT NULL AND c.tool IS NOT NULL AND c.args_hash IS NOT NULL
    AND COALESCE(c.executed, c.status BETWEEN 200 AND 299) = 1
), owners AS MATERIALIZED (
  -- a session's first principal, asked once per session that needs it
  SELECT d.session, (SELECT r.principal FROM records r WHERE r.session = d.session AND r.principal IS NOT NULL
    AND r.shadowed = 0 ORDER BY r.ts_ms, r.id LIMIT 1) AS principal
  FROM (SELECT DISTINCT session FROM execs WHERE principal IS NULL) d)
SELECT e.tool, e.args_hash, e.session, e.ts_ms, COALESCE(e.principal, o.principal) IS NULL AS unattributed
FROM execs e LEFT JOIN owners o ON o.session = e.session
ORDER BY e.tool, e.args_hash, e.ts_ms, e.id
