-- Where was each event id an accepted reconnect names (Last-Event-ID, replayed ids) sent, and what lies in its replay window?
-- Covers accepted resumes and fresh answers to a Last-Event-ID; an id is placed in the presented session's current incarnation, else by an earlier incarnation or another session.
-- Roles: last_event_id, first_replayed, replayed_ids, event.replayed, first_seen (the first SSE id a proxy saw in the response).
-- A proxy's inference that the server logged too is shadowed (one request, counted once).
-- Staged (store/queries.ts, queryParts): the served upgrades, the ids they name and where each was placed grow
-- with the log. As MATERIALIZED CTEs each was an ephemeral b-tree on SQLite's compiled 16 MB page cache (at 3M
-- lines this one query held ~90 MB of them for the rest of the run); as TEMP tables they live on the run's page budget.
-- Read by the rules that judge reconnects, through detect/facts/reconnect-facts.ts: event-id-regression,
-- foreign-event-id, phantom-event-id, resume-across-state-change, resume-after-end, silent-fork, silent-reset,
-- silent-truncation.
CREATE TEMP TABLE served AS
SELECT u.id AS up_id, u.session, u.ts_ms AS up_ts, u.origin, u.node, u.decision, u.last_event_id, u.stream, u.new_stream,
  u.replayed, u.first_replayed, u.replayed_ids, u.new_session, u.reset_signalled,
  CASE WHEN u.origin = 'proxy' THEN (
    SELECT CAST(json_extract(h.sse_event_ids, '$[0]') AS TEXT) FROM records h
    WHERE h.source_id = u.source_id AND h.line = u.line AND h.kind = 'http') END AS first_seen,
  (SELECT i.created_id FROM incarnations i
    WHERE i.session = u.session AND (i.created_ts, i.created_id) < (u.ts_ms, u.id)
    ORDER BY i.created_ts DESC, i.created_id DESC LIMIT 1) AS inc_id,
  (SELECT s.lane FROM streams s WHERE s.session = u.session AND s.stream = u.stream) AS resumed_lane
FROM upgrades u
WHERE u.session IS NOT NULL AND u.last_event_id IS NOT NULL AND u.status BETWEEN 200 AND 299
  AND u.decision IN ('resume', 'fresh');
CREATE INDEX temp.served_up ON served (up_id);
CREATE INDEX temp.served_stream ON served (session, new_stream);

-- set apart once: looked up per session, rather than walking each session's records in time per upgrade
CREATE TEMP TABLE state_changes AS
SELECT id, session, ts_ms FROM records WHERE kind = 'session.state_changed' AND shadowed = 0;
CREATE INDEX temp.state_changes_session ON state_changes (session, ts_ms, id);

CREATE TEMP TABLE ref AS
WITH replay_records AS (
  SELECT id, session, stream, event_id, ts_ms FROM records WHERE kind = 'event.replayed' AND shadowed = 0
)
SELECT up_id, 'last_event_id' AS role, 0 AS ord, up_id AS named_by, last_event_id AS event_id FROM served
UNION ALL
SELECT up_id, 'first_replayed', 0, up_id, first_replayed FROM served WHERE first_replayed IS NOT NULL
UNION ALL
SELECT up_id, 'first_seen', 0, up_id, first_seen FROM served WHERE first_seen IS NOT NULL
UNION ALL
SELECT v.up_id, 'replayed_ids', CAST(j.key AS INTEGER), v.up_id, CAST(j.value AS TEXT)
FROM served v, json_each(v.replayed_ids) j WHERE v.replayed_ids IS NOT NULL
UNION ALL
SELECT v.up_id, 'event.replayed', x.id, x.id, x.event_id
FROM replay_records x JOIN served v ON v.session = x.session AND v.new_stream = x.stream
WHERE (x.ts_ms, x.id) > (v.up_ts, v.up_id);

-- the emission in the current incarnation (from its creation, or from the log's start) before the upgrade
-- (the creation's time bounds the index range too: a session id minted again and again sends each id once an
-- incarnation, and without it every earlier incarnation's emission was stepped over, per reference)
CREATE TEMP TABLE placed AS
SELECT f.*, v.session, v.up_ts, v.node AS up_node, v.origin AS up_origin, i.created_ts AS inc_ts,
  (SELECT e.id FROM events e
    WHERE e.session = v.session AND e.event_id = f.event_id AND e.ts_ms >= COALESCE(i.created_ts, -9007199254740991)
      AND (i.created_id IS NULL OR (e.ts_ms, e.id) > (i.created_ts, i.created_id))
      AND (e.ts_ms, e.id) < (v.up_ts, v.up_id)
    ORDER BY e.ts_ms DESC, e.id DESC LIMIT 1) AS own_id
FROM ref f JOIN served v ON v.up_id = f.up_id LEFT JOIN incarnations i ON i.created_id = v.inc_id;

-- Any other session that sent an id before the upgrade: the earliest emission by a session other than the
-- reference's. Of the ids not placed in their own incarnation, the earliest emission of each session, and of
-- those the first two: one of them is another session's. Looked up among the id's emissions, a session that sent
-- the id most often (one id minted again and again) was stepped over per reference.
-- What "another session's id" means (rules.md foreign-event-id) is asked too by the engine replay,
-- facts/foreign-last-event-ids.sql, and by live mode, src/live/context-needs.ts: a change here changes those.
CREATE TEMP TABLE unplaced_ids AS
SELECT DISTINCT event_id FROM placed WHERE own_id IS NULL;
CREATE TEMP TABLE first_senders AS
SELECT event_id, session, id, ts_ms, k FROM (
  SELECT event_id, session, id, ts_ms, row_number() OVER (PARTITION BY event_id ORDER BY ts_ms, id) AS k FROM (
    SELECT u.event_id, e.session, e.id, e.ts_ms,
      row_number() OVER (PARTITION BY u.event_id, e.session ORDER BY e.ts_ms, e.id) AS first
    FROM unplaced_ids u JOIN events e ON e.event_id = u.event_id)
  WHERE first = 1)
WHERE k <= 2;
CREATE INDEX temp.first_senders_id ON first_senders (event_id, k);

CREATE TEMP TABLE located AS
SELECT p.*, o.stream AS own_stream, o.lane AS own_lane, o.lane_pos AS own_pos, o.ts_ms AS own_ts,
  CASE WHEN p.own_id IS NULL THEN (
    SELECT e.id FROM events e
    WHERE e.session = p.session AND e.event_id = p.event_id AND (e.ts_ms, e.id) < (p.up_ts, p.up_id)
    ORDER BY e.ts_ms DESC, e.id DESC LIMIT 1) END AS earlier_incarnation_id,
  CASE WHEN p.own_id IS NULL THEN (
    SELECT s.id FROM first_senders s
    WHERE s.event_id = p.event_id AND s.session <> p.session AND (s.ts_ms, s.id) < (p.up_ts, p.up_id)
    ORDER BY s.k LIMIT 1) END AS other_session_id,
  -- the session's own emission of an id it had not sent by then, within the clock-skew allowance after the upgrade
  -- and on another clock than the upgrade's (another node, or a proxy's): sent before it, by a node whose clock
  -- runs ahead (phantom-event-id reads the same allowance); one node's clock orders the two
  CASE WHEN p.own_id IS NULL THEN (
    SELECT e.id FROM events e INDEXED BY events_lookup JOIN records x ON x.id = e.id
    WHERE e.session = p.session AND e.event_id = p.event_id AND e.ts_ms >= p.up_ts AND e.ts_ms <= p.up_ts + :clock_skew_allowance_ms
      AND (e.ts_ms, e.id) > (p.up_ts, p.up_id) AND (p.up_origin = 'proxy' OR x.node IS NOT p.up_node)
    ORDER BY e.ts_ms, e.id LIMIT 1) END AS own_later_id
FROM placed p LEFT JOIN events o ON o.id = p.own_id;

-- The replay window follows the Last-Event-ID's send: its own emission, else its send within the clock-skew
-- allowance after, on another clock (own_later_id: sent before, by a node whose clock runs ahead).
CREATE TEMP TABLE anchors AS
SELECT l.up_id, l.session, l.up_ts, l.up_node, (SELECT v.stream FROM served v WHERE v.up_id = l.up_id) AS stream, a.id AS anchor_id, a.stream AS anchor_stream, a.lane AS anchor_lane,
  a.lane_pos AS anchor_pos, a.ts_ms AS anchor_ts
FROM located l JOIN events a ON a.id = COALESCE(l.own_id, l.own_later_id)
WHERE l.role = 'last_event_id';
CREATE INDEX temp.anchors_up ON anchors (up_id);

-- The window's head: the lane's last event logged before the upgrade. Derive numbers a lane's events in log
-- order, so it is found by galloping from the Last-Event-ID's position, then halving (lo: a position logged
-- before the upgrade; hi: none after it is): walking from there cost the window, the lane so far for a
-- client whose cursor never moves. (rules/answered-request-replayed.sql searches its anchors the same way.)
CREATE TEMP TABLE heads AS
WITH RECURSIVE probe(up_id, own_pos, session, lane, up_ts, lo, step, hi) AS (
  SELECT a.up_id, a.anchor_pos, a.session, a.anchor_lane, a.up_ts, a.anchor_pos, 1, NULL FROM anchors a
  UNION ALL
  SELECT p.up_id, p.own_pos, p.session, p.lane, p.up_ts,
    CASE WHEN e.id IS NOT NULL AND (e.ts_ms, e.id) < (p.up_ts, p.up_id) THEN e.lane_pos ELSE p.lo END,
    p.step * 2,
    CASE WHEN e.id IS NOT NULL AND (e.ts_ms, e.id) < (p.up_ts, p.up_id) THEN p.hi
      ELSE CASE WHEN p.hi IS NULL THEN p.lo + p.step ELSE (p.lo + p.hi + 1) / 2 END - 1 END
  FROM probe p
  LEFT JOIN events e ON e.session = p.session AND e.lane = p.lane
    AND e.lane_pos = CASE WHEN p.hi IS NULL THEN p.lo + p.step ELSE (p.lo + p.hi + 1) / 2 END
  WHERE p.hi IS NULL OR p.lo < p.hi
)
SELECT up_id, own_pos, lo AS head_pos FROM probe WHERE hi IS NOT NULL AND lo >= hi;
CREATE INDEX temp.heads_up ON heads (up_id);

-- Causality reaches further than the logged times: an event the resumption replayed had been sent before it,
-- whatever the clocks say, and so had every event its stream sent before it (one node's clock orders those).
-- Per upgrade, the furthest lane position of such a send on the resumed stream, logged after the upgrade on
-- another node: the first send of each replayed id after the Last-Event-ID (a node 3 s behind hid the event a
-- replay skipped). Only that stream's events join the window beyond its head: derive numbers the lane's events
-- by logged time, and the new stream's own, logged after the upgrade by the node behind, fall in between.
CREATE TEMP TABLE reaches AS
SELECT a.up_id, a.stream, max(e.lane_pos) AS reach_pos
FROM located f
JOIN anchors a ON a.up_id = f.up_id
JOIN events e ON e.id = (
  SELECT s.id FROM events s INDEXED BY events_lookup
  WHERE s.session = a.session AND s.event_id = f.event_id AND s.lane = a.anchor_lane AND s.lane_pos > a.anchor_pos
  ORDER BY s.lane_pos LIMIT 1)
JOIN records x ON x.id = e.id
WHERE f.role IN ('first_replayed', 'replayed_ids', 'event.replayed') AND e.stream = a.stream
  AND (e.ts_ms, e.id) > (a.up_ts, a.up_id) AND x.node IS NOT NULL AND x.node IS NOT a.up_node
GROUP BY a.up_id;
CREATE INDEX temp.reaches_up ON reaches (up_id);

-- A Last-Event-ID sent by no one is compared with the highest numeric id its session did send: found once per
-- session. Asked per reference, it sorted the session's events each time (one session of 54k events resumed
-- from 692 such ids: 17.7 s).
CREATE TEMP TABLE highest_numeric AS
SELECT s.session, (
    SELECT e.id FROM events e
    WHERE e.session = s.session AND e.event_id <> '' AND e.event_id NOT GLOB '*[^0-9]*'
    ORDER BY length(ltrim(e.event_id, '0')) DESC, ltrim(e.event_id, '0') DESC LIMIT 1) AS id
FROM (
  SELECT DISTINCT session FROM located
  WHERE role = 'last_event_id' AND own_id IS NULL AND earlier_incarnation_id IS NULL AND other_session_id IS NULL) s;
CREATE INDEX temp.highest_numeric_session ON highest_numeric (session);

WITH windows AS (
  SELECT w.*, max(w.head_pos - w.own_pos, 0) + w.reach_count AS after_count,
    CASE WHEN w.reach_count > 0 THEN w.reach_pos ELSE w.head_pos END AS end_pos,
    CASE WHEN w.head_pos > w.own_pos THEN w.own_pos + 1 WHEN w.reach_count > 0 THEN (
      SELECT min(c.lane_pos) FROM events c
      WHERE c.session = w.session AND c.lane = w.lane AND c.lane_pos > w.own_pos AND c.lane_pos <= w.reach_pos AND c.stream = w.reach_stream) END AS next_pos
  FROM (
    SELECT h.up_id, h.own_pos, h.head_pos, a.session, a.anchor_lane AS lane, r.reach_pos, r.stream AS reach_stream,
      CASE WHEN r.reach_pos > max(h.head_pos, h.own_pos) THEN (
        SELECT count(*) FROM events c
        WHERE c.session = a.session AND c.lane = a.anchor_lane AND c.lane_pos > max(h.head_pos, h.own_pos)
          AND c.lane_pos <= r.reach_pos AND c.stream = r.stream) ELSE 0 END AS reach_count
    FROM heads h JOIN anchors a ON a.up_id = h.up_id LEFT JOIN reaches r ON r.up_id = h.up_id) w
)
, facts AS (
SELECT v.up_id, v.session, v.up_ts AS at_ms, v.origin, v.node, v.decision, v.stream, v.new_stream, v.resumed_lane,
  v.replayed, v.first_replayed, v.replayed_ids, v.new_session, v.reset_signalled, v.inc_id, l.inc_ts,
  l.role, l.ord, l.named_by, l.event_id,
  l.own_id, l.own_stream, l.own_lane, l.own_pos, l.own_ts,
  l.earlier_incarnation_id, l.other_session_id, os.session AS other_session, os.stream AS other_stream, l.own_later_id,
  an.anchor_id, an.anchor_stream, an.anchor_lane, an.anchor_pos, an.anchor_ts,
  w.head_pos, CASE WHEN w.reach_count > 0 THEN w.reach_pos END AS reach_pos, w.reach_stream,
  hd.id AS head_id, w.after_count, nx.id AS next_id, nx.event_id AS next_event_id,
  -- a Last-Event-ID no one had sent before the upgrade: its first emission, after it (skew, or a phantom then)
  CASE WHEN l.role = 'last_event_id' AND l.own_id IS NULL AND l.earlier_incarnation_id IS NULL AND l.other_session_id IS NULL THEN (
    SELECT e.id FROM events e WHERE e.event_id = l.event_id ORDER BY e.ts_ms, e.id LIMIT 1) END AS first_emission_id,
  -- the first state change after the event (by whichever session emitted it, v2; where no one did, in the
  -- incarnation) before the upgrade
  CASE WHEN l.role = 'last_event_id' THEN (
    SELECT c.id FROM state_changes c
    WHERE c.session = v.session
      AND (c.ts_ms, c.id) > (
        COALESCE(l.own_ts, (SELECT e.ts_ms FROM events e WHERE e.id = COALESCE(l.earlier_incarnation_id, l.other_session_id)), l.inc_ts, -1),
        COALESCE(l.own_id, l.earlier_incarnation_id, l.other_session_id, v.inc_id, -1))
      AND (c.ts_ms, c.id) < (v.up_ts, v.up_id)
    ORDER BY c.ts_ms, c.id LIMIT 1) END AS state_change_id,
  CASE WHEN l.role = 'last_event_id' AND l.own_id IS NOT NULL AND v.decision = 'fresh' THEN (
    SELECT e.id FROM events e JOIN requests q ON q.session = e.session AND q.request_id = e.request_id
    WHERE e.session = v.session AND e.lane = l.own_lane AND e.lane_pos > l.own_pos
      AND (e.ts_ms, e.id) < (v.up_ts, v.up_id) AND q.answered_id IS NOT NULL AND q.answered_ts <= v.up_ts
    ORDER BY e.lane_pos LIMIT 1) END AS answered_in_window_id,
  -- a Last-Event-ID sent by no one: the highest numeric id the session did send, to compare with
  CASE WHEN l.role = 'last_event_id' AND l.own_id IS NULL AND l.earlier_incarnation_id IS NULL AND l.other_session_id IS NULL THEN (
    -- INDEXED BY: with a row or two, the planner would scan the table per reference
    SELECT h.id FROM highest_numeric h INDEXED BY highest_numeric_session WHERE h.session = v.session) END AS highest_numeric_id
FROM located l
JOIN served v ON v.up_id = l.up_id
LEFT JOIN events os ON os.id = COALESCE(l.earlier_incarnation_id, l.other_session_id)
LEFT JOIN anchors an ON an.up_id = l.up_id AND l.role = 'last_event_id'
LEFT JOIN windows w ON w.up_id = l.up_id AND l.role = 'last_event_id'
LEFT JOIN events hd ON hd.session = v.session AND hd.lane = an.anchor_lane AND hd.lane_pos = w.end_pos AND w.end_pos > an.anchor_pos
LEFT JOIN events nx ON nx.session = v.session AND nx.lane = an.anchor_lane AND nx.lane_pos = w.next_pos
)
SELECT f.*, hn.event_id AS highest_numeric_event_id, sc.aspect AS state_change_aspect, sc.ts_ms AS state_change_ts,
  fe.ts_ms AS first_emission_ts, fe.session AS first_emission_session, fe.stream AS first_emission_stream
FROM facts f LEFT JOIN events hn ON hn.id = f.highest_numeric_id LEFT JOIN records sc ON sc.id = f.state_change_id
LEFT JOIN events fe ON fe.id = f.first_emission_id
ORDER BY f.at_ms, f.up_id, f.role <> 'last_event_id', f.role, f.ord;
