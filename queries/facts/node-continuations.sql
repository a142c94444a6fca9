-- Which upgrades were answered by a node that the log shows sharing the session's state with another node?
-- A node shares it once it has accepted a resume of the session whose replay continued exactly where another
-- node's events left off: its first replayed event is the one another node emitted right after Last-Event-ID
-- on that stream's lineage. Only a shared store gives a node another node's event log; a fork restarts the
-- sequence instead (seed 004). A cross-node resume or attach that mints nothing shows it too (rules.md v2). Lists every later upgrade of that session on that node (and that resume itself).
-- The first event.replayed of each stream, set apart once: looked up per resume in the session's records, it
-- walked the session from its start to the stream (a long session logging event.replayed lines: quadratic).
-- Read by resume-after-end, silent-fork and silent-reset (through detect/facts/served-upgrades.ts), and by the
-- engine replay (replay/engine-replay.ts: engine-divergence, whatif).
WITH first_replays AS MATERIALIZED (
  SELECT session, stream, event_id FROM (
    SELECT session, stream, event_id, row_number() OVER (PARTITION BY session, stream ORDER BY ts_ms, id) AS rn
    FROM records WHERE kind = 'event.replayed' AND shadowed = 0 AND session IS NOT NULL AND stream IS NOT NULL
      -- only the streams of resumes that log neither first_replayed nor replayed_ids look here
      AND (session, stream) IN (SELECT session, new_stream FROM upgrades
        WHERE decision = 'resume' AND first_replayed IS NULL AND json_extract(replayed_ids, '$[0]') IS NULL AND new_stream IS NOT NULL))
  WHERE rn = 1
), replay_start AS (
  SELECT u.id, u.session, u.node, u.ts_ms, u.last_event_id,
    COALESCE(u.first_replayed, json_extract(u.replayed_ids, '$[0]'),
      (SELECT x.event_id FROM first_replays x WHERE x.session = u.session AND x.stream = u.new_stream)) AS first_replayed
  FROM upgrades u
  WHERE u.origin = 'server' AND u.decision = 'resume' AND u.status BETWEEN 200 AND 299 AND u.replayed > 0
    AND u.session IS NOT NULL AND u.node IS NOT NULL AND u.last_event_id IS NOT NULL
), continued AS (
  SELECT r.id, r.session, r.node, r.ts_ms
  FROM replay_start r
  JOIN events at_mark ON at_mark.id = (
    SELECT e.id FROM events e WHERE e.session = r.session AND e.event_id = r.last_event_id AND (e.ts_ms, e.id) < (r.ts_ms, r.id)
    ORDER BY e.ts_ms DESC, e.id DESC LIMIT 1)
  JOIN events nxt ON nxt.session = at_mark.session AND nxt.lane = at_mark.lane AND nxt.lane_pos = at_mark.lane_pos + 1
  JOIN records emitted ON emitted.id = nxt.id
  WHERE CAST(nxt.event_id AS TEXT) = CAST(r.first_replayed AS TEXT) AND emitted.node IS NOT NULL AND emitted.node <> r.node
  UNION ALL
  -- v2: a node that accepts a resume or attach of a session it did not create, minting nothing (no new_session,
  -- no creation of the id on that node up to a second after), shows a shared store, whatever it replayed.
  SELECT u.id, u.session, u.node, u.ts_ms
  FROM upgrades u
  WHERE u.origin = 'server' AND u.decision IN ('resume', 'attach') AND u.status BETWEEN 200 AND 299
    AND u.session IS NOT NULL AND u.node IS NOT NULL AND (u.new_session IS NULL OR u.new_session = u.session)
    -- (the session's creations are its incarnations: looked up among its records, each walked the session up to it)
    AND EXISTS (SELECT 1 FROM incarnations c WHERE c.session = u.session
      AND c.node IS NOT NULL AND c.node <> u.node AND (c.created_ts, c.created_id) < (u.ts_ms, u.id))
    AND NOT EXISTS (SELECT 1 FROM incarnations c WHERE c.session = u.session AND c.node = u.node AND c.created_ts <= u.ts_ms + 1000)
)
-- Every server upgrade of that session on that node from the first such one on: a running minimum over the node's
-- upgrades in order (joining each upgrade with every earlier continuation cost a shared-store session its length squared).
SELECT upgrade_id, session, node, at_ms, shown_by FROM (
  SELECT u.id AS upgrade_id, u.session, u.node, u.ts_ms AS at_ms,
    min(c.id) OVER (PARTITION BY u.session, u.node ORDER BY u.ts_ms, u.id ROWS UNBOUNDED PRECEDING) AS shown_by
  FROM upgrades u
  LEFT JOIN (SELECT DISTINCT id FROM continued) c ON c.id = u.id
  WHERE u.origin = 'server' AND u.session IS NOT NULL AND u.node IS NOT NULL)
WHERE shown_by IS NOT NULL
ORDER BY at_ms, upgrade_id;
