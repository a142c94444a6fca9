-- session-in-stateless-era: a request at protocol 2026-07-28 or later answered with a session.
-- A mint (a session.created, an upgrade minting a session other than the one it presents, a proxy response
-- carrying an Mcp-Session-Id the request did not present) is judged by its session's version (the
-- session_versions view: an initialize selects the legacy revision it negotiated, which the mint may not log,
-- having logged the one the client asked for), else its own, unless it is an initialize's (initialize_mints):
-- 2026-07-28 has no initialize, so the version an initialize asked for says nothing of the session it got.
-- An echo (an upgrade or a proxy response handing back the session the request presented) is judged by its
-- own version, else its session's.
-- One mint, one finding: a session.created answering a minting upgrade of its session (the nearest to each
-- other within 1 s, on one node where both name it) is that upgrade's evidence, not a finding of its own.
-- Staged: each session's version found once and indexed (joined as a view, it was looked up again for
-- every row; as a CTE, the planner may scan it per row where it holds a few rows).
CREATE TEMP TABLE mint_era_versions AS SELECT session, protocol_version FROM session_versions;
CREATE INDEX temp.mint_era_versions_session ON mint_era_versions (session);

WITH answered AS (
  SELECT r.id, r.ts_ms, r.kind, r.node, r.session AS presented, r.protocol_version,
         coalesce(r.new_session, CASE WHEN r.kind = 'http' THEN json_extract(r.resp_headers, '$."mcp-session-id"') END, r.session) AS minted
  FROM records r
  WHERE (r.kind = 'session.created' AND r.origin = 'server')
     OR (r.kind = 'upgrade' AND r.origin = 'server' AND r.shadowed = 0 AND r.new_session IS NOT NULL)
     OR (r.kind = 'http' AND json_extract(r.resp_headers, '$."mcp-session-id"') IS NOT NULL)
), judged AS (
  SELECT a.id, a.ts_ms, a.kind, a.node, a.minted,
         CASE WHEN a.kind = 'session.created' OR a.minted IS NOT a.presented
           THEN coalesce(sv.protocol_version, CASE WHEN NOT EXISTS (SELECT 1 FROM initialize_mints m WHERE m.id = a.id) THEN a.protocol_version END)
           ELSE coalesce(a.protocol_version, sv.protocol_version) END AS version,
         a.kind = 'upgrade' AND a.minted IS NOT a.presented AS minting_upgrade
  FROM answered a LEFT JOIN mint_era_versions sv ON sv.session = a.minted
), fired AS MATERIALIZED (
  SELECT * FROM judged
  -- (a version that is not a date names no revision: "latest" would sort after every date)
  WHERE version GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' AND version >= '2026-07-28'
), pairs AS (
  SELECT c.id AS created_id, u.id AS upgrade_id,
         row_number() OVER (PARTITION BY c.id ORDER BY abs(c.ts_ms - u.ts_ms), u.id) AS by_creation,
         row_number() OVER (PARTITION BY u.id ORDER BY abs(c.ts_ms - u.ts_ms), c.id) AS by_upgrade
  FROM fired c JOIN fired u ON u.minted = c.minted AND u.minting_upgrade
    AND c.ts_ms BETWEEN u.ts_ms - 1000 AND u.ts_ms + 1000 AND (u.node IS NULL OR c.node IS NULL OR u.node = c.node)
  WHERE c.kind = 'session.created'
), answering AS (
  SELECT created_id, upgrade_id FROM pairs WHERE by_creation = 1 AND by_upgrade = 1
)
SELECT f.id, f.minted AS session, f.ts_ms AS at_ms, f.kind, f.version,
       CASE WHEN p.created_id IS NULL THEN json_array(f.id) ELSE json_array(f.id, p.created_id) END AS evidence,
       p.created_id IS NOT NULL AS created_too
FROM fired f LEFT JOIN answering p ON p.upgrade_id = f.id
WHERE f.id NOT IN (SELECT created_id FROM answering)
ORDER BY f.ts_ms, f.id
