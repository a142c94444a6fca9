// Derived views every connection gets (TEMP: nothing is written to a --db file, so its schema version
// stays as it is). One definition each, read by every query that asks the same question.

export const DERIVED_VIEWS_SQL = `
-- Pending at an upgrade: for every accepted resume or attach presenting a session, each server-to-client
-- request sent in the session's current incarnation before it (since its creation, or from the log's start)
-- and not answered (2xx), cancelled, re-issued or timed out before it. The one definition behind
-- queries/rules/pending-not-reemitted.sql and queries/rules/duplicate-reemit.sql; the engine's isPending
-- (src/engine/requests.ts) is the same test, applied to its state at the upgrade.
CREATE TEMP VIEW IF NOT EXISTS pending_at_upgrade AS
WITH accepted AS (
  SELECT u.id, u.ts_ms, u.session,
    (SELECT i.created_id FROM incarnations i
     WHERE i.session = u.session AND (i.created_ts, i.created_id) < (u.ts_ms, u.id)
     ORDER BY i.created_ts DESC, i.created_id DESC LIMIT 1) AS created_id
  FROM upgrades u
  WHERE u.decision IN ('resume', 'attach') AND u.status BETWEEN 200 AND 299 AND u.session IS NOT NULL
)
SELECT a.id AS upgrade_id, a.created_id, q.session, q.sent_id, q.sent_ts, q.request_id, q.method, q.stream, q.event_id
FROM accepted a
JOIN requests q ON q.session = a.session AND (q.sent_ts, q.sent_id) < (a.ts_ms, a.id)
LEFT JOIN incarnations i ON i.created_id = a.created_id
LEFT JOIN records ans ON ans.id = q.answered_id
LEFT JOIN records can ON can.id = q.cancelled_id
LEFT JOIN records reis ON reis.id = q.reissued_id
LEFT JOIN records tmo ON tmo.id = q.timed_out_id
WHERE (i.created_id IS NULL OR (q.sent_ts, q.sent_id) > (i.created_ts, i.created_id))
  AND (ans.id IS NULL OR (ans.ts_ms, ans.id) > (a.ts_ms, a.id))
  AND (can.id IS NULL OR (can.ts_ms, can.id) > (a.ts_ms, a.id))
  AND (reis.id IS NULL OR (reis.ts_ms, reis.id) > (a.ts_ms, a.id))
  AND (tmo.id IS NULL OR (tmo.ts_ms, tmo.id) > (a.ts_ms, a.id));

-- A session's protocol version: the first its records log (log-format.md: a session's records inherit
-- it). One row per session that logs one. The one definition behind summary.protocol_versions,
-- queries/rules/session-in-stateless-era.sql, queries/rules/replay-in-stateless-era.sql and the engine
-- replay's revision per session.
CREATE TEMP VIEW IF NOT EXISTS session_versions AS
SELECT session, protocol_version FROM (
  SELECT session, protocol_version, row_number() OVER (PARTITION BY session ORDER BY ts_ms, id) AS k
  FROM records WHERE session IS NOT NULL AND protocol_version IS NOT NULL)
WHERE k = 1;
`;
