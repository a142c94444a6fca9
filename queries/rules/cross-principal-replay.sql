-- Which resumptions or replays were served to a principal other than the owner of the session whose events were replayed?
-- Whose events: the presented session's, or, when Last-Event-ID was emitted only in another session (a foreign
-- event id), that session's; where the presented session had sent it, the first replayed id (first_replayed,
-- replayed_ids, event.replayed) that it never sent and another session did leads to that one. Owner: the principal
-- of the creation of the incarnation that sent the event (the presented session's may be an earlier one, its id
-- minted again), else the first principal logged for it.
-- Served to: the upgrade's principal, else that of a stream of the same session opened on its connection
-- (connection ids repeat across nodes and proxies multiplex sessions on one connection, so another
-- session's stream on the same conn id proves nothing). Rows where either is
-- unknown have a NULL owner or client, and rows where another session had sent that foreign id too name it in
-- also_sent_by: all are not knowable. Evidence: the owner's line, the foreign event,
-- the client's line, the upgrade.
CREATE TEMP TABLE replay_records AS
SELECT id, ts_ms, session, stream, event_id FROM records WHERE kind = 'event.replayed' AND shadowed = 0;
CREATE INDEX temp.replay_records_at ON replay_records (session, stream, ts_ms, id);
-- the ids each accepted upgrade of a session says it replayed, in their place: first_replayed, replayed_ids, then
-- the event.replayed records on its new stream
CREATE TEMP TABLE replayed_refs AS
SELECT u.id AS up_id, 0 AS o, 0 AS k, CAST(u.first_replayed AS TEXT) AS event_id FROM upgrades u
WHERE u.first_replayed IS NOT NULL AND u.session IS NOT NULL AND u.status BETWEEN 200 AND 299
UNION ALL
SELECT u.id, 1, CAST(j.key AS INTEGER), CAST(j.value AS TEXT) FROM upgrades u, json_each(u.replayed_ids) j
WHERE u.replayed_ids IS NOT NULL AND u.session IS NOT NULL AND u.status BETWEEN 200 AND 299
UNION ALL
SELECT v.id, 2, x.id, x.event_id FROM replay_records x
JOIN (SELECT id, ts_ms, session, new_stream FROM upgrades WHERE session IS NOT NULL AND new_stream IS NOT NULL AND status BETWEEN 200 AND 299) v
  ON v.session = x.session AND v.new_stream = x.stream AND (x.ts_ms, x.id) > (v.ts_ms, v.id);
CREATE INDEX temp.replayed_refs_up ON replayed_refs (up_id, o, k);

WITH replayed_on AS MATERIALIZED (
  -- streams that logged replayed events, once: probing each session's records per upgrade grows with the session
  SELECT DISTINCT session, stream FROM replay_records
), served AS MATERIALIZED (
  SELECT u.id, u.ts_ms, u.session, u.last_event_id, u.decision, u.new_stream, u.conn, u.principal, u.replayed, u.origin,
    u.node, u.first_replayed, u.replayed_ids
  FROM upgrades u
  WHERE u.status BETWEEN 200 AND 299 AND u.decision <> 'reject'
    -- v2: only a replay that served events (a resumption that replayed nothing served nothing); the ids a proxy saw
    -- answering a request without Last-Event-ID are new events, not a replay
    AND (u.replayed > 0 OR u.first_replayed IS NOT NULL OR COALESCE(json_array_length(u.replayed_ids), 0) > 0
      OR EXISTS (SELECT 1 FROM replayed_on x WHERE x.session = u.session AND x.stream = u.new_stream)
      OR (u.origin = 'proxy' AND u.last_event_id IS NOT NULL AND EXISTS (SELECT 1 FROM records h WHERE h.source_id = u.source_id AND h.line = u.line
        AND h.kind = 'http' AND COALESCE(json_array_length(h.sse_event_ids), 0) > 0)))
), emitting AS MATERIALIZED (
  -- the served sessions whose emissions are in the log (server records of it), each asked once: asked per upgrade,
  -- a session only a proxy logged was read whole for each of its upgrades
  SELECT d.session FROM (SELECT DISTINCT session FROM served WHERE session IS NOT NULL) d
  WHERE EXISTS (SELECT 1 FROM records r WHERE r.session = d.session AND r.origin = 'server'
    AND r.kind IN ('session.created', 'event.sent', 'request.sent', 'stream.opened'))
), owned_event AS (
  SELECT s.*,
    -- ids are per session: another session's only where the presented session's emissions are in the log
    -- (server records of it) and it never emitted the id; a proxy-only session's sightings are its own. Without a
    -- session, a server that replayed resolved the id in its own global log; a proxy line alone proves nothing.
    (s.session IS NULL AND s.origin = 'server') OR s.session IN (SELECT session FROM emitting) AS emissions_logged,
    -- by session first: event ids repeat across sessions (1, 2, 3 ...), so the index on the id alone walks
    -- every session's copy of it
    (SELECT e.id FROM events e INDEXED BY events_lookup WHERE e.session = s.session AND e.event_id = s.last_event_id
       AND (e.ts_ms, e.id) < (s.ts_ms, s.id) ORDER BY e.ts_ms DESC, e.id DESC LIMIT 1) AS own_event
  FROM served s
), skew_owned AS (
  -- an id the presented session itself sends within the clock-skew allowance after the upgrade, on another clock
  -- than the one that logged the upgrade (another node, or a proxy), is its own, sent before by a node whose clock
  -- runs ahead (as phantom-event-id reads it): its emissions are in the log and it did emit the id. On the same
  -- node one clock orders the two, and the id was not the session's yet.
  SELECT s.*, CASE WHEN s.own_event IS NULL AND s.session IS NOT NULL THEN (
      SELECT e.id FROM events e INDEXED BY events_lookup JOIN records x ON x.id = e.id
      WHERE e.session = s.session AND e.event_id = s.last_event_id
        AND e.ts_ms >= s.ts_ms AND e.ts_ms <= s.ts_ms + :clock_skew_allowance_ms AND (e.ts_ms, e.id) > (s.ts_ms, s.id)
        AND (s.origin = 'proxy' OR x.node IS NOT s.node)
      ORDER BY e.ts_ms, e.id LIMIT 1) END AS own_later
  FROM owned_event s
), sourced AS MATERIALIZED (
  -- `led_by`, the id that leads to another session: only an id the presented session never emitted is looked up
  -- elsewhere (ids like 1, 2, 3 repeat across sessions). The Last-Event-ID; or, where it is the session's own, the
  -- first replayed id the session never sent before the upgrade and another session did, by its place
  -- (first_replayed, then replayed_ids, then event.replayed records)
  SELECT s.*, CASE WHEN COALESCE(s.own_event, s.own_later) IS NULL THEN CASE WHEN s.emissions_logged THEN s.last_event_id END
    WHEN s.session IS NOT NULL AND s.emissions_logged THEN (
    SELECT r.event_id FROM replayed_refs r WHERE r.up_id = s.id
      -- sent by the session before the upgrade, or within the skew allowance after on another clock (skew_owned)
      AND NOT EXISTS (SELECT 1 FROM events e INDEXED BY events_lookup JOIN records x ON x.id = e.id
        WHERE e.session = s.session AND e.event_id = r.event_id AND e.ts_ms <= s.ts_ms + :clock_skew_allowance_ms
        AND ((e.ts_ms, e.id) < (s.ts_ms, s.id) OR s.origin = 'proxy' OR x.node IS NOT s.node))
      AND EXISTS (SELECT 1 FROM events e WHERE e.event_id = r.event_id AND e.session <> s.session AND (e.ts_ms, e.id) < (s.ts_ms, s.id))
    ORDER BY r.o, r.k LIMIT 1) END AS led_by,
    -- the presented session's own emission of the first replayed id: what was served, and so whose (an incarnation
    -- other than the Last-Event-ID's may have sent it, where the session id was minted again)
    CASE WHEN COALESCE(s.own_event, s.own_later) IS NOT NULL THEN (
      SELECT e.id FROM events e INDEXED BY events_lookup
      WHERE e.session = s.session AND (e.ts_ms, e.id) < (s.ts_ms, s.id)
        AND e.event_id = (SELECT r.event_id FROM replayed_refs r WHERE r.up_id = s.id ORDER BY r.o, r.k LIMIT 1)
      ORDER BY e.ts_ms DESC, e.id DESC LIMIT 1) END AS replayed_own
  FROM skew_owned s
), elsewhere AS MATERIALIZED (
  SELECT s.*,
    CASE WHEN s.led_by IS NOT NULL THEN
      (SELECT e.id FROM events e WHERE e.event_id = s.led_by AND e.session IS NOT s.session
         AND (e.ts_ms, e.id) < (s.ts_ms, s.id) ORDER BY e.ts_ms DESC, e.id DESC LIMIT 1) END AS other_event
  FROM sourced s
), sole_source AS MATERIALIZED (
  -- another session that had sent the id too: then which session's events were served cannot be told (ids
  -- like 1, 2, 3 repeat across sessions), and the row is not knowable. Asked only where the id led elsewhere: asked
  -- of every upgrade, it walked every emission of its id before it (a per-session counter's in every session)
  SELECT s.*,
    CASE WHEN s.other_event IS NOT NULL THEN
      (SELECT e2.session FROM events e2 WHERE e2.event_id = s.led_by AND e2.session IS NOT s.session
         AND e2.session <> f.session AND (e2.ts_ms, e2.id) < (s.ts_ms, s.id) ORDER BY e2.ts_ms, e2.id LIMIT 1) END AS also_sent_by
  FROM elsewhere s LEFT JOIN events f ON f.id = s.other_event
), origin AS MATERIALIZED (
  -- the session whose events were replayed, and the incarnation that sent them: judged at the event another
  -- session sent, else at the presented session's own emission of the first replayed id, else of the Last-Event-ID
  -- (a replay follows its position), else at the upgrade
  SELECT s.*, f.id AS foreign_event,
    COALESCE(f.session, s.session) AS source_session,
    (SELECT i.created_id FROM incarnations i
     WHERE i.session = COALESCE(f.session, s.session)
       AND (i.created_ts, i.created_id) <= (COALESCE(f.ts_ms, o.ts_ms, s.ts_ms), COALESCE(f.id, o.id, s.id))
     ORDER BY i.created_ts DESC, i.created_id DESC LIMIT 1) AS created_id,
    -- the incarnation the upgrade presented: another than the event's where the session id was minted again
    CASE WHEN f.id IS NULL AND o.id IS NOT NULL THEN (SELECT i.created_id FROM incarnations i
     WHERE i.session = s.session AND (i.created_ts, i.created_id) < (s.ts_ms, s.id)
     ORDER BY i.created_ts DESC, i.created_id DESC LIMIT 1) END AS presented_created_id,
    o.id AS own_emission, o.event_id AS own_emitted, o.ts_ms AS own_emitted_ts
  FROM sole_source s LEFT JOIN events f ON f.id = s.other_event
  LEFT JOIN events o ON o.id = COALESCE(s.replayed_own, s.own_event, s.own_later)
), first_named AS MATERIALIZED (
  -- each incarnation's first record naming a principal, asked once per incarnation: asked per upgrade, a
  -- session that never names one was read from its creation up to each of its upgrades
  SELECT d.source_session, d.created_id,
    (SELECT r.id FROM records r
     WHERE r.session = d.source_session AND r.principal IS NOT NULL AND r.shadowed = 0
       AND (r.ts_ms, r.id) >= (COALESCE(i.created_ts, -1), COALESCE(i.created_id, -1))
     ORDER BY r.ts_ms, r.id LIMIT 1) AS first_id
  FROM (SELECT DISTINCT source_session, created_id FROM origin) d LEFT JOIN incarnations i ON i.created_id = d.created_id
), owned AS MATERIALIZED (
  -- the owner: that record, if it came before the upgrade (or, where the session's own emission was taken for one
  -- before the upgrade by the skew allowance, before that emission: the same clock logged both)
  SELECT o.*, CASE WHEN (r.ts_ms, r.id) < (o.ts_ms, o.id)
    OR (o.own_event IS NULL AND o.own_later IS NOT NULL AND r.id <> o.id AND r.ts_ms <= o.own_emitted_ts) THEN r.id END AS owner_id,
    o.presented_created_id IS NOT NULL AND o.presented_created_id IS NOT o.created_id AS earlier_incarnation
  FROM origin o
  LEFT JOIN first_named f ON f.source_session IS o.source_session AND f.created_id IS o.created_id
  LEFT JOIN records r ON r.id = f.first_id
), conn_streams AS MATERIALIZED (
  SELECT session, conn, opened_id, opened_ts FROM streams WHERE conn IS NOT NULL AND principal IS NOT NULL AND opened_id IS NOT NULL
), clients AS MATERIALIZED (
  SELECT o.*,
    CASE WHEN o.principal IS NOT NULL THEN o.id ELSE COALESCE(
      (SELECT st.opened_id FROM streams st WHERE st.session = o.session AND st.stream = o.new_stream AND st.principal IS NOT NULL),
      -- the stream last opened on its connection, else the next one opened on it
      (SELECT cs.opened_id FROM conn_streams cs WHERE cs.session = o.session AND cs.conn = o.conn AND cs.opened_ts <= o.ts_ms ORDER BY cs.opened_ts DESC, cs.opened_id DESC LIMIT 1),
      (SELECT cs.opened_id FROM conn_streams cs WHERE cs.session = o.session AND cs.conn = o.conn AND cs.opened_ts > o.ts_ms ORDER BY cs.opened_ts, cs.opened_id LIMIT 1)) END AS client_id
  FROM owned o
)
SELECT c.id AS upgrade_id, c.session, c.ts_ms AS at_ms, c.decision, c.last_event_id, c.new_stream,
  c.source_session, c.also_sent_by, ow.principal AS owner, cl.principal AS client,
  CASE WHEN c.foreign_event IS NOT NULL AND COALESCE(c.own_event, c.own_later) IS NOT NULL THEN c.led_by END AS replayed_id,
  c.earlier_incarnation, CASE WHEN c.earlier_incarnation AND c.own_emission IS NOT c.own_event THEN c.own_emitted END AS served_id,
  -- an earlier incarnation's: its emission shows whose the event was, and the creation after it whose the session is now
  json_array(c.owner_id, COALESCE(c.foreign_event, CASE WHEN c.earlier_incarnation THEN c.own_emission END),
    CASE WHEN c.earlier_incarnation THEN c.presented_created_id END, c.client_id, c.id) AS evidence
FROM clients c
LEFT JOIN records ow ON ow.id = c.owner_id
LEFT JOIN records cl ON cl.id = c.client_id
WHERE ow.principal IS NULL OR cl.principal IS NULL OR ow.principal <> cl.principal
ORDER BY c.ts_ms, c.id;
