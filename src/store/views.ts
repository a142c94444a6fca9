// Derived views every connection gets (TEMP: nothing is written to a --db file, so its schema version
// stays as it is). One definition each, read by every query that asks the same question.

export const DERIVED_VIEWS_SQL = `
-- Pending at an upgrade: for every accepted resume or attach presenting a session, each server-to-client
-- request sent in the session's current incarnation before it (since its creation, or from the log's start)
-- and not answered (2xx), cancelled, re-issued or timed out before it. The one definition behind
-- queries/rules/pending-not-reemitted.sql and queries/rules/duplicate-reemit.sql; the engine's isPending
-- (src/engine/requests.ts) is the same test, applied to its state at the upgrade.
CREATE TEMP VIEW IF NOT EXISTS pending_at_upgrade AS
-- Driven by the requests: each one's life, from its send to the first of its 2xx answer, cancel, re-issue or
-- time-out, or to the session's next creation, holds the upgrades it is pending at (a range of the session's
-- records). From the upgrades, each one read every earlier request of its session: quadratic in a session's
-- length, where a soak test's clients reattach thousands of times.
WITH lives AS (
  SELECT q.*,
    (SELECT r.id FROM records r WHERE r.id IN (q.answered_id, q.cancelled_id, q.reissued_id, q.timed_out_id)
     ORDER BY r.ts_ms, r.id LIMIT 1) AS end_id,
    (SELECT i.created_id FROM incarnations i
     WHERE i.session = q.session AND (i.created_ts, i.created_id) > (q.sent_ts, q.sent_id)
     ORDER BY i.created_ts, i.created_id LIMIT 1) AS next_created_id
  FROM requests q
)
SELECT a.id AS upgrade_id,
  (SELECT i.created_id FROM incarnations i
   WHERE i.session = a.session AND (i.created_ts, i.created_id) < (a.ts_ms, a.id)
   ORDER BY i.created_ts DESC, i.created_id DESC LIMIT 1) AS created_id,
  q.session, q.sent_id, q.sent_ts, q.request_id, q.method, q.stream, q.event_id
FROM lives q
LEFT JOIN records e ON e.id = q.end_id
LEFT JOIN incarnations n ON n.created_id = q.next_created_id
CROSS JOIN records a ON a.session = q.session AND +a.kind = 'upgrade' AND a.shadowed = 0
  AND a.ts_ms BETWEEN q.sent_ts AND min(COALESCE(e.ts_ms, 9223372036854775807), COALESCE(n.created_ts, 9223372036854775807))
  AND (a.ts_ms, a.id) > (q.sent_ts, q.sent_id)
WHERE a.decision IN ('resume', 'attach') AND a.status BETWEEN 200 AND 299
  AND (e.id IS NULL OR (a.ts_ms, a.id) < (e.ts_ms, e.id))
  AND (n.created_id IS NULL OR (a.ts_ms, a.id) < (n.created_ts, n.created_id));

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
