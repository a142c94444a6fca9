-- Which sessions had a 404 storm: at least :storm_count POSTs answered 404 within :storm_window_ms?
-- A POST: a proxy `http` POST, or a server `call` / `request.answered` (each request counted once: proxy rows
-- shadowed by a server record are dropped, records inferred from an `http` line are not counted again, and a
-- proxy POST without a shared `req` (none, or the proxy's own: a `req` some server record carries has shadowed
-- it already) that the server logged too, same session, JSON-RPC id and 404, while it lasted, is that server
-- record; a POST without a JSON-RPC id, a notification, is never merged by time alone: rules.md v2). Proxy and server
-- clocks drift apart by seconds: the proxy's n-th 404 POST of a session and JSON-RPC id is also the server's n-th
-- record of them where the two lie within the clock-skew allowance (an answer to a server request is POSTed once).
-- Overlapping windows form one storm; evidence: the POSTs of its first window.
-- A stale header is no session (the stale_session_ids view: an id only stateless-era requests presented and no
-- server answered with): at 2026-07-28 a 404 says the method is not found (streamable-http.mdx, Protocol Version
-- Header), not that a session is unknown, so the POSTs that name one are no session's storm (the view is read once,
-- and only where a 404 POST names a session).

WITH found_posts AS (
  SELECT id, ts_ms, kind, req, duration_ms, COALESCE(request_id, rpc_id) AS rpc,
    COALESCE(session, json_extract(req_headers, '$."mcp-session-id"')) AS session
  FROM records
  WHERE shadowed = 0 AND status = 404 AND (
    (kind = 'http' AND upper(http_method) = 'POST')
    OR (origin = 'server' AND kind IN ('call', 'request.answered')))
), all_posts AS MATERIALIZED (
  -- nth: the POST's place among its session's 404 POSTs of its JSON-RPC id, the proxy's and the server's apart
  SELECT f.*, row_number() OVER (PARTITION BY f.session, f.rpc, f.kind = 'http' ORDER BY f.ts_ms, f.id) AS nth FROM found_posts f
), posts AS (
  SELECT p.id, p.ts_ms, p.kind, p.rpc, p.session FROM all_posts p
  WHERE NOT (p.kind = 'http' AND EXISTS (
    SELECT 1 FROM all_posts s WHERE s.kind <> 'http' AND s.session = p.session AND p.rpc IS NOT NULL AND s.rpc = p.rpc
      AND (s.ts_ms BETWEEN p.ts_ms - :pairing_slack_ms AND p.ts_ms + COALESCE(p.duration_ms, 0) + :pairing_slack_ms
        OR (s.nth = p.nth AND s.ts_ms BETWEEN p.ts_ms - :clock_skew_allowance_ms AND p.ts_ms + COALESCE(p.duration_ms, 0) + :clock_skew_allowance_ms))))
), windowed AS (
  SELECT p.*, count(*) OVER (PARTITION BY session ORDER BY ts_ms RANGE BETWEEN CURRENT ROW AND :storm_window_ms FOLLOWING) AS in_window
  FROM posts p WHERE session IS NOT NULL AND session NOT IN (SELECT session FROM stale_session_ids)
), window_starts AS (
  SELECT w.*, lag(ts_ms) OVER (PARTITION BY session ORDER BY ts_ms, id) AS prev_start
  FROM windowed w WHERE in_window >= :storm_count
), storms AS (
  -- a window start within the previous start's window continues that storm
  SELECT session, start_ms, storm_end_ms FROM (
    SELECT session, ts_ms AS start_ms, new_storm,
      max(ts_ms) OVER (PARTITION BY session, storm_no) + :storm_window_ms AS storm_end_ms
    FROM (
      SELECT s.*, (prev_start IS NULL OR ts_ms > prev_start + :storm_window_ms) AS new_storm,
        sum(prev_start IS NULL OR ts_ms > prev_start + :storm_window_ms) OVER (PARTITION BY session ORDER BY ts_ms, id) AS storm_no
      FROM window_starts s))
  WHERE new_storm
), members AS (
  SELECT s.session, s.start_ms, s.storm_end_ms, p.id, p.ts_ms, p.kind, p.rpc,
    row_number() OVER (PARTITION BY s.session, s.start_ms ORDER BY p.ts_ms, p.id) AS k
  FROM storms s JOIN posts p ON p.session = s.session AND p.ts_ms BETWEEN s.start_ms AND s.storm_end_ms
)
SELECT session, max(ts_ms) FILTER (WHERE k = :storm_count) AS at_ms, count(*) AS posts, min(ts_ms) AS first_ms, max(ts_ms) AS last_ms,
  sum(kind = 'request.answered') AS answers, sum(kind = 'call') AS calls, sum(kind = 'http') AS proxy_posts,
  json_group_array(rpc ORDER BY k) FILTER (WHERE rpc IS NOT NULL) AS rpc_ids,
  json_group_array(id ORDER BY k) FILTER (WHERE ts_ms <= start_ms + :storm_window_ms) AS evidence
FROM members
GROUP BY session, start_ms
ORDER BY at_ms, session;
