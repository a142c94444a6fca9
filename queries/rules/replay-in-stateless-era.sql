-- replay-in-stateless-era: a request at protocol 2026-07-28 or later carried Last-Event-ID and was resumed or replayed.
-- A server's upgrade, and a proxy's GET: at that revision a GET has no stream to be answered with (405), so one
-- a proxy saw accepted with the header was resumed. A proxy's POST is not judged: its response stream may be the
-- fresh one the request asked for, and the event ids it saw prove no replay, since that revision numbers them per
-- stream (each response may start at "0", or at any id) and gives them no meaning as a cursor.
-- A record's version is its own, else its session's (the session_versions view).
-- Staged: each session's version found once and indexed (joined as a view, it was looked up again for
-- every upgrade; as a CTE, the planner may scan it per upgrade where it holds a few rows).
CREATE TEMP TABLE replay_era_versions AS SELECT session, protocol_version FROM session_versions;
CREATE INDEX temp.replay_era_versions_session ON replay_era_versions (session);

WITH judged AS (
  SELECT u.id, u.session, u.ts_ms, u.decision, u.replayed, u.last_event_id, u.origin, u.status, u.source_id, u.line,
         coalesce(u.protocol_version, sv.protocol_version) AS version, u.protocol_version IS NULL AS inherited
  FROM upgrades u LEFT JOIN replay_era_versions sv ON sv.session = u.session
  WHERE u.last_event_id IS NOT NULL
    AND ((u.origin = 'server'
          AND ((u.decision = 'resume' AND (u.status IS NULL OR u.status BETWEEN 200 AND 299)) OR u.replayed > 0))
      -- (proxy inference reads a GET with the header as a resume only where it was answered 2xx)
      OR (u.origin = 'proxy' AND u.http_method = 'GET' AND u.decision = 'resume'))
)
SELECT j.id, j.session, j.ts_ms AS at_ms, j.decision, j.replayed, j.last_event_id, j.version, j.origin, j.status,
       -- the SSE ids the proxy saw on the response: its line's http record, written just before what it inferred
       CASE WHEN j.origin = 'proxy' THEN (SELECT h.sse_event_ids FROM records h
         WHERE h.source_id = j.source_id AND h.line = j.line AND h.kind = 'http' AND h.id < j.id ORDER BY h.id DESC LIMIT 1) END AS seen_ids,
       j.inherited,
       -- a request that logs no version is judged by its session's: the session's first line that logs it, its
       -- creation first, then its mint, shows the revision to a reader of the evidence (looked up per finding: few)
       CASE WHEN j.inherited AND j.session IS NOT NULL THEN coalesce(
         (SELECT id FROM records WHERE session = j.session AND kind = 'session.created' AND protocol_version = j.version AND shadowed = 0 ORDER BY ts_ms, id LIMIT 1),
         (SELECT id FROM records WHERE new_session = j.session AND protocol_version = j.version AND shadowed = 0 ORDER BY ts_ms, id LIMIT 1),
         (SELECT id FROM records WHERE session = j.session AND protocol_version = j.version AND shadowed = 0 ORDER BY ts_ms, id LIMIT 1))
       END AS version_shown_by,
       json_array(j.id) AS evidence
FROM judged j
-- (a version that is not a date names no revision: "latest" would sort after every date)
WHERE j.version GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' AND j.version >= '2026-07-28'
ORDER BY j.ts_ms, j.id
