-- Was the session each accepted upgrade presented live on the answering node, ended, created only elsewhere, or never created?
-- state: the latest lifecycle record before the upgrade decides (a server 404 for the id makes it unknown, not ended) (a proxy sees a DELETE answered 2xx as an end, never an eviction).
-- ended_*: for a state of answered-404, the end that 404 follows (no creation between): a 404 does not revive an
-- ended session, so resume-after-end still sees the end; silent-fork reads the state, "unknown".
-- Staged (store/queries.ts, queryParts): the served upgrades, the lifecycle records and their order per
-- session grow with the log. As MATERIALIZED CTEs (and `ordered`, read twice, materialized by SQLite) each
-- was an ephemeral b-tree on SQLite's compiled 16 MB page cache: at 3M lines about 75 MB for this one query.
-- Read by resume-after-end, silent-fork and silent-reset (through detect/facts/served-upgrades.ts).
CREATE TEMP TABLE served AS
SELECT u.* FROM upgrades u
WHERE u.session IS NOT NULL AND u.status BETWEEN 200 AND 299 AND u.decision IN ('resume', 'attach', 'fresh');
CREATE INDEX temp.served_id ON served (id);
CREATE INDEX temp.served_session ON served (session);

CREATE TEMP TABLE life AS
SELECT id, session, ts_ms, kind, node, reason FROM records
WHERE kind IN ('session.created', 'session.terminated', 'session.evicted') AND shadowed = 0
UNION ALL
-- (a proxy line the server logged too, one req, is shadowed: the server's record of the end stands, not the proxy's arrival)
SELECT id, json_extract(req_headers, '$."mcp-session-id"'), ts_ms, 'http.delete', node, NULL FROM records
WHERE kind = 'http' AND upper(http_method) = 'DELETE' AND status BETWEEN 200 AND 299 AND shadowed = 0
UNION ALL
-- the server answered 404 for the id (v2 silent-fork: unknown until created again); a proxy line is that answer too
SELECT id, session, ts_ms, 'answered.404', node, NULL FROM records
WHERE status = 404 AND origin = 'server' AND shadowed = 0 AND session IS NOT NULL
  AND kind IN ('call', 'request.answered', 'upgrade')
UNION ALL
SELECT id, json_extract(req_headers, '$."mcp-session-id"'), ts_ms, 'answered.404', node, NULL FROM records
WHERE kind = 'http' AND status = 404 AND shadowed = 0 AND json_extract(req_headers, '$."mcp-session-id"') IS NOT NULL;
CREATE INDEX temp.life_id ON life (id);

CREATE TEMP TABLE ordered AS
WITH timeline AS (
  SELECT id, session, ts_ms, kind, 0 AS is_upgrade FROM life WHERE session IN (SELECT session FROM served)
  UNION ALL
  SELECT id, session, ts_ms, 'upgrade', 1 FROM served
)
SELECT t.*, row_number() OVER (PARTITION BY session ORDER BY ts_ms, id) AS rn FROM timeline t;
CREATE INDEX temp.ordered_rn ON ordered (session, rn);

WITH first_server AS MATERIALIZED (
  -- each session's first server record, asked once per session: asked per upgrade, a session only a proxy
  -- logged was read up to each of its upgrades
  SELECT d.session, (SELECT r.id FROM records r WHERE r.session = d.session AND r.origin = 'server' ORDER BY r.ts_ms, r.id LIMIT 1) AS id
  FROM (SELECT DISTINCT session FROM served) d
), flagged AS (
  -- a creation logged in the same millisecond just before an upgrade, re-creating an id the log already had,
  -- is that upgrade's own re-mint: that upgrade is judged by the lifecycle record before it
  SELECT o.*, COALESCE(o.kind = 'session.created'
      AND lead(o.is_upgrade) OVER w = 1 AND lead(o.ts_ms) OVER w = o.ts_ms
      AND sum(1 - o.is_upgrade) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) > 0, 0) AS reminted
  FROM ordered o WINDOW w AS (PARTITION BY session ORDER BY ts_ms, id)
), marked AS (
  SELECT f.*,
    CASE WHEN lag(f.reminted) OVER w = 1
      THEN max(CASE WHEN is_upgrade = 0 THEN rn END) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING)
      ELSE max(CASE WHEN is_upgrade = 0 THEN rn END) OVER (w ROWS UNBOUNDED PRECEDING) END AS life_rn,
    CASE WHEN lag(f.reminted) OVER w = 1
      THEN max(CASE WHEN is_upgrade = 0 AND kind <> 'answered.404' THEN rn END) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING)
      ELSE max(CASE WHEN is_upgrade = 0 AND kind <> 'answered.404' THEN rn END) OVER (w ROWS UNBOUNDED PRECEDING) END AS creation_or_end_rn,
    CASE WHEN lag(f.reminted) OVER w = 1 THEN lag(f.id) OVER w END AS reminted_before_id
  FROM flagged f WINDOW w AS (PARTITION BY session ORDER BY ts_ms, id)
), placed AS (
  SELECT u.*, ol.id AS placed_life_id, m.reminted_before_id,
    CASE WHEN ol.kind = 'answered.404' AND oe.kind NOT IN ('session.created', 'answered.404') THEN oe.id END AS ended_before_id,
    -- a session with no lifecycle record before the upgrade and no server record of it either, whose creation
    -- another clock (another node, a proxy's upgrade) logs within the clock-skew allowance after: created before
    -- it, by a node whose clock runs ahead (phantom-event-id's allowance), not a session the log starts after
    CASE WHEN ol.id IS NULL AND NOT EXISTS (SELECT 1 FROM first_server f JOIN records r ON r.id = f.id
        WHERE f.session = u.session AND (r.ts_ms, r.id) < (u.ts_ms, u.id)) THEN (
      SELECT c.id FROM records c INDEXED BY records_session
      WHERE c.session = u.session AND c.ts_ms >= u.ts_ms AND c.ts_ms <= u.ts_ms + :clock_skew_allowance_ms
        AND (c.ts_ms, c.id) > (u.ts_ms, u.id) AND c.kind = 'session.created' AND c.shadowed = 0
        AND (u.origin = 'proxy' OR c.node IS NOT u.node)
      ORDER BY c.ts_ms, c.id LIMIT 1) END AS skewed_creation_id
  FROM marked m JOIN served u ON u.id = m.id
  LEFT JOIN ordered ol ON ol.session = m.session AND ol.rn = m.life_rn
  LEFT JOIN ordered oe ON oe.session = m.session AND oe.rn = m.creation_or_end_rn
  WHERE m.is_upgrade = 1
), judged AS (
  SELECT u.*, lr.id AS life_id,
    CASE
      WHEN lr.id IS NULL THEN 'never-created'
      WHEN lr.kind = 'answered.404' THEN 'answered-404'
      WHEN lr.kind <> 'session.created' THEN 'ended'
      WHEN lr.node IS NOT NULL AND u.node IS NOT NULL AND lr.node <> u.node THEN 'other-node'
      ELSE 'live' END AS state
  FROM placed u LEFT JOIN life lr ON lr.id = COALESCE(u.placed_life_id, u.skewed_creation_id)
)
SELECT j.id AS upgrade_id, j.session, j.ts_ms AS at_ms, j.origin, j.node, j.decision, j.status, j.last_event_id,
  j.new_session, j.reset_signalled, j.state, j.protocol_version AS version,
  j.life_id, lr.kind AS life_kind, lr.ts_ms AS life_ts, lr.node AS life_node, lr.reason AS life_reason,
  j.ended_before_id AS ended_id, le.kind AS ended_kind, le.ts_ms AS ended_ts, le.node AS ended_node, le.reason AS ended_reason,
  -- a session never created in the log that the server had logged before: the log started late
  CASE WHEN j.state = 'never-created' THEN (
    SELECT r.id FROM first_server f JOIN records r ON r.id = f.id WHERE f.session = j.session AND (r.ts_ms, r.id) < (j.ts_ms, j.id)) END AS prior_server_id,
  -- the re-mint that answered it: a creation just before (see flagged), else the session's next record if it is a creation
  COALESCE(j.reminted_before_id, (
    SELECT CASE WHEN r.kind = 'session.created' AND r.id IS NOT j.skewed_creation_id THEN r.id END FROM records r
    WHERE r.session = j.session AND r.shadowed = 0 AND r.kind <> 'http' AND (r.ts_ms, r.id) > (j.ts_ms, j.id)
    ORDER BY r.ts_ms, r.id LIMIT 1)) AS reminted_id,
  CASE j.state
    WHEN 'never-created' THEN json_array(j.id)
    ELSE json_array(j.life_id, j.id) END AS evidence
FROM judged j LEFT JOIN life lr ON lr.id = j.life_id LEFT JOIN life le ON le.id = j.ended_before_id
ORDER BY j.ts_ms, j.id;
