-- session-in-stateless-era: a request at protocol 2026-07-28 or later answered with a session.
-- A record's version is its own, else the first its session logs (log-format.md: inherited).
WITH session_version AS (
  SELECT s.session, (SELECT p.protocol_version FROM records p
                     WHERE p.session = s.session AND p.protocol_version IS NOT NULL ORDER BY p.ts_ms, p.id LIMIT 1) AS v
  FROM (SELECT DISTINCT session FROM records WHERE session IS NOT NULL) s
),
answered AS (
  SELECT r.id, r.ts_ms, r.kind, r.protocol_version,
         coalesce(r.new_session, CASE WHEN r.kind = 'http' THEN json_extract(r.resp_headers, '$."mcp-session-id"') END, r.session) AS minted
  FROM records r
  WHERE (r.kind = 'session.created' AND r.origin = 'server')
     OR (r.kind = 'upgrade' AND r.origin = 'server' AND r.shadowed = 0 AND r.new_session IS NOT NULL)
     OR (r.kind = 'http' AND json_extract(r.resp_headers, '$."mcp-session-id"') IS NOT NULL)
)
SELECT a.id, a.minted AS session, a.ts_ms AS at_ms, a.kind, coalesce(a.protocol_version, sv.v) AS version, json_array(a.id) AS evidence
FROM answered a LEFT JOIN session_version sv ON sv.session = a.minted
WHERE coalesce(a.protocol_version, sv.v) >= '2026-07-28'
ORDER BY a.ts_ms, a.id
