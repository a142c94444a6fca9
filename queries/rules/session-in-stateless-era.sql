-- session-in-stateless-era: a request at protocol 2026-07-28 or later answered with a session.
-- A record's version is its own, else its session's (the session_versions view).
WITH answered AS (
  SELECT r.id, r.ts_ms, r.kind, r.protocol_version,
         coalesce(r.new_session, CASE WHEN r.kind = 'http' THEN json_extract(r.resp_headers, '$."mcp-session-id"') END, r.session) AS minted
  FROM records r
  WHERE (r.kind = 'session.created' AND r.origin = 'server')
     OR (r.kind = 'upgrade' AND r.origin = 'server' AND r.shadowed = 0 AND r.new_session IS NOT NULL)
     OR (r.kind = 'http' AND json_extract(r.resp_headers, '$."mcp-session-id"') IS NOT NULL)
)
SELECT a.id, a.minted AS session, a.ts_ms AS at_ms, a.kind, coalesce(a.protocol_version, sv.protocol_version) AS version, json_array(a.id) AS evidence
FROM answered a LEFT JOIN session_versions sv ON sv.session = a.minted
-- (a version that is not a date names no revision: "latest" would sort after every date)
WHERE coalesce(a.protocol_version, sv.protocol_version) GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'
  AND coalesce(a.protocol_version, sv.protocol_version) >= '2026-07-28'
ORDER BY a.ts_ms, a.id
