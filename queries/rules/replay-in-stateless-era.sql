-- replay-in-stateless-era: a request at protocol 2026-07-28 or later carried Last-Event-ID and was resumed or replayed.
-- Server upgrades only: a proxy cannot tell a replay from a fresh response stream to a POST that carried the header.
-- A record's version is its own, else its session's (the session_versions view).
-- Staged: each session's version found once and indexed (joined as a view, it was looked up again for
-- every upgrade; as a CTE, the planner may scan it per upgrade where it holds a few rows).
CREATE TEMP TABLE replay_era_versions AS SELECT session, protocol_version FROM session_versions;
CREATE INDEX temp.replay_era_versions_session ON replay_era_versions (session);

WITH judged AS (
  SELECT u.id, u.session, u.ts_ms, u.decision, u.replayed, u.last_event_id,
         coalesce(u.protocol_version, sv.protocol_version) AS version
  FROM upgrades u LEFT JOIN replay_era_versions sv ON sv.session = u.session
  WHERE u.origin = 'server' AND u.last_event_id IS NOT NULL
    AND ((u.decision = 'resume' AND (u.status IS NULL OR u.status BETWEEN 200 AND 299)) OR u.replayed > 0)
)
SELECT id, session, ts_ms AS at_ms, decision, replayed, last_event_id, version, json_array(id) AS evidence
FROM judged
-- (a version that is not a date names no revision: "latest" would sort after every date)
WHERE version GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' AND version >= '2026-07-28'
ORDER BY ts_ms, id
