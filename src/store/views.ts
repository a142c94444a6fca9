import { STATELESS_REVISION } from '../model/record.js';

/**
 * Whether the SQL value `column` is a revision of the stateless era (2026-07-28 or later): a date, as
 * model/record.ts isStatelessEra reads one. One test for every view that asks it.
 */
function statelessEra(column: string): string {
  return `(${column} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' AND ${column} >= '${STATELESS_REVISION}')`;
}

/**
 * Whether the record `r` is an initialize's mint: a proxy line whose JSON-RPC method is `initialize` (or what is
 * inferred from it), or a minting upgrade logged as log-format.md logs the initialize POST's (no session and no
 * Last-Event-ID presented, `decision: fresh`, a POST) whose method, where logged, is `initialize`. As the engine
 * tells an initialize (engine/upgrade-request.ts), but a method the log names decides: a proxy line of another
 * request that minted a session is no initialize, and one that names none is not taken for one.
 */
function initializeMint(r: string): string {
  return `(${r}.method = 'initialize' OR (${r}.method IS NULL AND ${r}.origin = 'server' AND ${r}.kind = 'upgrade' AND ${r}.session IS NULL
    AND ${r}.last_event_id IS NULL AND ${r}.decision = 'fresh' AND upper(coalesce(${r}.http_method, 'POST')) = 'POST'))`;
}

// Derived views every connection gets (TEMP: nothing is written to a --db file, so its schema version
// stays as it is). One definition each, read by every query that asks the same question.

export const DERIVED_VIEWS_SQL = `
-- Pending at an upgrade: for every accepted resume or attach presenting a session, each server-to-client
-- request sent in the session's current incarnation before it (since its creation, or from the log's start)
-- and not answered (2xx), cancelled, re-issued or timed out before it: a request whose life (request_lives)
-- holds the upgrade. The one definition behind pending-not-reemitted and duplicate-reemit (which walk the
-- lives, below); the engine's isPending (src/engine/pending-requests.ts) is the same test, applied to its
-- state at the upgrade.

-- A server request's life: from its send to the first of its 2xx answer, cancel, re-issue or time-out, or
-- to the session's next creation (end_ts, end_id: the record that ends it; NULL while it never ends).
CREATE TEMP VIEW IF NOT EXISTS request_lives AS
SELECT q.*,
  CASE WHEN n.created_id IS NOT NULL AND (e.id IS NULL OR (n.created_ts, n.created_id) < (e.ts_ms, e.id)) THEN n.created_ts ELSE e.ts_ms END AS end_ts,
  CASE WHEN n.created_id IS NOT NULL AND (e.id IS NULL OR (n.created_ts, n.created_id) < (e.ts_ms, e.id)) THEN n.created_id ELSE e.id END AS end_id
FROM requests q
LEFT JOIN records e ON e.id = (
  SELECT r.id FROM records r WHERE r.id IN (q.answered_id, q.cancelled_id, q.reissued_id, q.timed_out_id)
  ORDER BY r.ts_ms, r.id LIMIT 1)
LEFT JOIN incarnations n ON n.created_id = (
  SELECT i.created_id FROM incarnations i
  WHERE i.session = q.session AND (i.created_ts, i.created_id) > (q.sent_ts, q.sent_id)
  ORDER BY i.created_ts, i.created_id LIMIT 1);

-- The pairs, for the query command: driven by the requests, each one's life holding the upgrades it is pending at (a
-- range of the session's records). The rules do not list them: a request never answered is pending at
-- every later reconnect, so a long session that never answers lists its length squared. They walk the
-- lives and the reconnects once, in log order (src/detect/facts/pending-at-reconnects.ts).
CREATE TEMP VIEW IF NOT EXISTS pending_at_upgrade AS
SELECT a.id AS upgrade_id,
  (SELECT i.created_id FROM incarnations i
   WHERE i.session = a.session AND (i.created_ts, i.created_id) < (a.ts_ms, a.id)
   ORDER BY i.created_ts DESC, i.created_id DESC LIMIT 1) AS created_id,
  q.session, q.sent_id, q.sent_ts, q.request_id, q.method, q.stream, q.event_id
FROM request_lives q
CROSS JOIN records a ON a.session = q.session AND +a.kind = 'upgrade' AND a.shadowed = 0
  AND a.ts_ms BETWEEN q.sent_ts AND COALESCE(q.end_ts, 9223372036854775807)
  AND (a.ts_ms, a.id) > (q.sent_ts, q.sent_id)
WHERE a.decision IN ('resume', 'attach') AND a.status BETWEEN 200 AND 299
  AND (q.end_id IS NULL OR (a.ts_ms, a.id) < (q.end_ts, q.end_id));

-- A stream's close for polling that ends the connection only, not the stream (log-format.md: poll, since
-- 2025-11-25): a poll close whose revision has polling (the close's version, else its session's, as
-- session_versions reads it): 2025-11-25 up to the stateless era (src/engine/revisions.ts, polling). At
-- 2025-03-26 or 2025-06-18 the client was told no retry it knows to honour, so the close ends the stream like
-- any other, as whatif counts it. No version (or one that is not a date): the engine's default, 2025-11-25.
-- The one definition behind queries/rules/orphaned-request.sql and queries/facts/requests-and-reconnects.sql.
CREATE TEMP VIEW IF NOT EXISTS polling_closes AS
SELECT closed_id FROM (
  SELECT c.id AS closed_id, coalesce(c.protocol_version, (SELECT v.protocol_version FROM session_versions v WHERE v.session = c.session)) AS version
  FROM records c
  WHERE c.kind = 'stream.closed' AND c.reason = 'poll' AND c.shadowed = 0)
WHERE version IS NULL OR version NOT GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' OR (version >= '2025-11-25' AND version < '2026-07-28');

-- Session ids that are stale headers, not sessions: every record naming one is a request of the stateless era
-- (its own version 2026-07-28 or later, which ignores Mcp-Session-Id) that no server answered with that session
-- (no creation or mint of it, no accepted resume or attach, no replay, no response echoing it). The one
-- definition behind summary.sessions and protocol_versions, the proxy-only sessions, and the rules that group by
-- session (event-id-regression, 404-storm, duplicate-tool-call, orphaned-request, stranded-response).
CREATE TEMP VIEW IF NOT EXISTS stale_session_ids AS
WITH candidates AS (
  SELECT DISTINCT session FROM records
  WHERE session IS NOT NULL AND ${statelessEra('protocol_version')})
SELECT c.session FROM candidates c
WHERE NOT EXISTS (
    SELECT 1 FROM records r WHERE r.session = c.session AND r.shadowed = 0 AND (
      (r.kind <> 'http' AND NOT ${statelessEra('r.protocol_version')})
      OR r.kind = 'session.created'
      OR (r.kind = 'upgrade' AND (r.new_session IS NOT NULL OR coalesce(r.replayed, 0) > 0
        OR (r.decision IN ('resume', 'attach') AND (r.status IS NULL OR r.status BETWEEN 200 AND 299))))
      OR (r.kind = 'http' AND json_extract(r.resp_headers, '$."mcp-session-id"') IS NOT NULL)))
  AND NOT EXISTS (SELECT 1 FROM records r WHERE r.new_session = c.session);

-- Each node over every source: the input's records, and its last server line by (time, id) (records that name no
-- node: node NULL). node_records (store/node-tally.ts, counted as records are stored) summed: the one definition
-- behind summary.nodes, queries/reports/lost-sessions.sql (a node that logged nothing more) and
-- queries/reports/nodes.sql. A node with no server line (a proxy) has last_ms NULL.
CREATE TEMP VIEW IF NOT EXISTS node_totals AS
SELECT node, records, last_ms, last_id FROM (
  SELECT node, sum(records) OVER (PARTITION BY node) AS records, last_ms, last_id,
    row_number() OVER (PARTITION BY node ORDER BY last_ms DESC, last_id DESC) AS k
  FROM node_records)
WHERE k = 1;

-- The records of an initialize that minted a session (initializeMint above: a minting upgrade, a proxy line). The
-- version they log is the request's, maybe the one the client asked for: a 2026-07-28 one says nothing of the
-- session (2026-07-28 has no initialize). Read by queries/rules/session-in-stateless-era.sql, per record (by id).
CREATE TEMP VIEW IF NOT EXISTS initialize_mints AS
SELECT id FROM records r WHERE ${initializeMint('r')};

-- A session's protocol version: the revision it speaks (log-format.md: a session's records inherit it). An
-- initialize selects legacy semantics, "as specified by the negotiated legacy protocol version" (2026-07-28
-- versioning), and a server's session.created that logs a version logs the negotiation's result
-- (log-format.md: "the version negotiated by initialize"); the other records of the initialize (its minting
-- upgrade, a proxy's line and what is inferred from it) log the request's, which may be the one the client
-- asked for. So: its server creation's version where it is an earlier revision's (before 2026-07-28); else the
-- first version on its other records where it is an earlier revision's; else its mint's (an earlier revision's
-- before a later one, a creation's before an upgrade's). A 2026-07-28 or later version says something of the
-- session only where a server creation logs it, or a request that is no initialize minted the session (an
-- initialize_mints row is not: 2026-07-28 has no initialize, so a session an initialize minted is a legacy
-- session whatever the client asked for). On a request that only presents the session it says nothing either
-- (such a request has no session: the header is stale, and ignored). One row per session that has one. The one
-- definition behind summary.protocol_versions, queries/rules/session-in-stateless-era.sql,
-- queries/rules/replay-in-stateless-era.sql and the engine replay's revision per session.
-- Cost (EXPLAIN QUERY PLAN: index searches only): the sessions are those records_version names (read in its
-- order, no sort) and those a versioned minting upgrade names (records_new_session) that it does not; then per
-- session a walk of its versioned records in records_version up to the first that is not its creation and not
-- stateless (the version is in the index; the kind costs a row read, the creation's mostly), and its mint
-- records: its creations through the derived incarnations (read after derive, as request_lives is: found
-- through the records, a session whose requests log only a stale stateless version would cost a row read per
-- request), its minting upgrades through records_new_session. A query for one session is pushed down into
-- both: a few index searches (the timeline; a rule asking it per row, (SELECT … WHERE session = x)). Joined,
-- it is flattened into the join: its subqueries are asked again for every row joined, and where the planner
-- takes it for small it scans it per row. Ask it per session, or stage it as an indexed temp table.
CREATE TEMP VIEW IF NOT EXISTS session_versions AS
SELECT session, protocol_version FROM (
  SELECT s.session, coalesce(
    -- its server creation's, an earlier revision's: the negotiated version
    (SELECT c.protocol_version FROM incarnations i JOIN records c ON c.id = i.created_id
     WHERE i.session = s.session AND c.origin = 'server' AND c.protocol_version IS NOT NULL
       AND NOT ${statelessEra('c.protocol_version')}
     ORDER BY i.created_ts, i.created_id LIMIT 1),
    -- the first earlier revision's on its records other than its creations (its minting upgrades have another session)
    (SELECT r.protocol_version FROM records r INDEXED BY records_version
     WHERE r.session = s.session AND r.protocol_version IS NOT NULL
       AND NOT ${statelessEra('r.protocol_version')}
       AND r.kind <> 'session.created'
     ORDER BY r.ts_ms, r.id LIMIT 1),
    -- its mint's: an earlier revision's before a later one, its creation's before its upgrade's
    (SELECT c.protocol_version FROM incarnations i JOIN records c ON c.id = i.created_id
     WHERE i.session = s.session AND c.protocol_version IS NOT NULL
       AND NOT ${statelessEra('c.protocol_version')}
     ORDER BY i.created_ts, i.created_id LIMIT 1),
    (SELECT u.protocol_version FROM records u INDEXED BY records_new_session
     WHERE u.new_session = s.session AND u.protocol_version IS NOT NULL AND u.kind = 'upgrade' AND u.shadowed = 0 AND u.session IS NOT u.new_session
       AND NOT ${statelessEra('u.protocol_version')}
     ORDER BY u.ts_ms, u.id LIMIT 1),
    -- a later revision's only from a server creation (a proxy's is its line's request's), or a mint that is no initialize
    (SELECT c.protocol_version FROM incarnations i JOIN records c ON c.id = i.created_id
     WHERE i.session = s.session AND c.origin = 'server' AND c.protocol_version IS NOT NULL ORDER BY i.created_ts, i.created_id LIMIT 1),
    (SELECT u.protocol_version FROM records u INDEXED BY records_new_session
     WHERE u.new_session = s.session AND u.protocol_version IS NOT NULL AND u.kind = 'upgrade' AND u.shadowed = 0 AND u.session IS NOT u.new_session
       AND NOT ${initializeMint('u')}
     ORDER BY u.ts_ms, u.id LIMIT 1)
  ) AS protocol_version
  FROM (
    SELECT DISTINCT session FROM records INDEXED BY records_version WHERE session IS NOT NULL AND protocol_version IS NOT NULL
    UNION ALL
    SELECT DISTINCT u.new_session FROM records u INDEXED BY records_new_session
    WHERE u.new_session IS NOT NULL AND u.protocol_version IS NOT NULL AND u.kind = 'upgrade' AND u.shadowed = 0 AND u.session IS NOT u.new_session
      AND NOT EXISTS (SELECT 1 FROM records r INDEXED BY records_version WHERE r.session = u.new_session AND r.protocol_version IS NOT NULL)) s)
WHERE protocol_version IS NOT NULL;
`;
