-- Which tools/call did a proxy send upstream more than once, an attempt failing with 5xx before a later one,
-- where the servers logged fewer executions of it than the proxy logged attempts?
-- A proxy's line of a call the server logged too is shadowed by that server record (one request, counted once), and a
-- failed attempt whose node died mid-call (Envoy retrying on an upstream reset) is shadowed by the retry's execution on
-- the next node, which its span covers. duplicate-tool-call reads it: whether the failed attempt ran the tool before
-- its node failed is not in the server logs, so the call is not knowable rather than passed unsaid.
CREATE TEMP TABLE attempts AS
SELECT id, ts_ms, session, rpc_id, status, duration_ms FROM records
WHERE kind = 'call' AND origin = 'proxy' AND method = 'tools/call' AND session IS NOT NULL AND rpc_id IS NOT NULL;
CREATE INDEX temp.attempts_request ON attempts (session, rpc_id, ts_ms, id);

WITH failed AS (
  -- the first failed attempt with a later attempt of the same request
  SELECT a.*, row_number() OVER (PARTITION BY a.session, a.rpc_id ORDER BY a.ts_ms, a.id) AS k FROM attempts a
  WHERE a.status >= 500 AND EXISTS (
    SELECT 1 FROM attempts b WHERE b.session = a.session AND b.rpc_id = a.rpc_id AND (b.ts_ms, b.id) > (a.ts_ms, a.id))
), counted AS (
  SELECT f.session, f.rpc_id, f.ts_ms, f.status, f.duration_ms,
    (SELECT count(*) FROM attempts b WHERE b.session = f.session AND b.rpc_id = f.rpc_id) AS attempts,
    (SELECT json_group_array(json_array(b.ts_ms, b.status) ORDER BY b.ts_ms, b.id) FROM attempts b
     WHERE b.session = f.session AND b.rpc_id = f.rpc_id) AS tries,
    (SELECT count(*) FROM records c INDEXED BY records_session
     WHERE c.session = f.session AND c.kind = 'call' AND c.origin = 'server' AND c.rpc_id = f.rpc_id) AS executions,
    (SELECT c.tool FROM records c INDEXED BY records_session
     WHERE c.session = f.session AND c.kind = 'call' AND c.origin = 'server' AND c.rpc_id = f.rpc_id AND c.tool IS NOT NULL
     ORDER BY c.ts_ms, c.id LIMIT 1) AS tool
  FROM failed f WHERE f.k = 1
)
SELECT * FROM counted WHERE executions > 0 AND attempts > executions
ORDER BY ts_ms, session;
