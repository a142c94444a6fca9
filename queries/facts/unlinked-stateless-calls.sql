-- Which executions of a tools/call without a session name no POST stream, where their principal executed the same
-- tool and arguments again within :duplicate_call_window_ms?
-- No stream: the call logs no `stream`, `req` or `conn`, and no response to its rpc id was logged. duplicate-tool-call
-- reads it: whether such a call's response stream broke before its response (the retry a 2026-07-28 client makes
-- under a new id) cannot be told, so the pair is not knowable rather than passed unsaid.
WITH stateless_responses AS MATERIALIZED (
  SELECT DISTINCT rpc_id FROM records
  WHERE kind = 'event.sent' AND rpc_kind = 'response' AND session IS NULL AND rpc_id IS NOT NULL AND shadowed = 0
)
SELECT id, ts_ms, tool, principal, next_ms FROM (
  SELECT c.id, c.ts_ms, c.session, c.stream, c.req, c.conn, c.rpc_id, c.tool, c.principal,
    lead(c.ts_ms) OVER (PARTITION BY c.principal, c.tool, c.args_hash ORDER BY c.ts_ms, c.id) AS next_ms
  FROM calls c
  WHERE c.method = 'tools/call' AND c.principal IS NOT NULL AND c.tool IS NOT NULL AND c.args_hash IS NOT NULL
    AND COALESCE(c.executed, c.status BETWEEN 200 AND 299) = 1)
WHERE session IS NULL AND stream IS NULL AND req IS NULL AND conn IS NULL AND next_ms - ts_ms <= :duplicate_call_window_ms
  AND (rpc_id IS NULL OR rpc_id NOT IN (SELECT rpc_id FROM stateless_responses))
ORDER BY ts_ms, id;
