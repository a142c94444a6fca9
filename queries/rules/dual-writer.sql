-- Which accepted upgrades superseded a stream that was neither closed nor fenced at that moment (two writers)?
-- Closed or fenced must come strictly before the upgrade in log order; the end of the session also ends a stream, and
-- so does the server's own record that it had no live body for it (an event written `attached: false`).
-- Evidence: the old stream's opening, then the upgrade that took over from it, then its later close or fence. Where
-- the old stream is the lineage's live head (a resumption from a position an earlier one already took over): the
-- resumption that opened it, this one, the head's first write after it, then its close or fence.
-- The nodes of the upgrade and of that close or fence: two nodes' clocks order them only so closely (dual-writer.ts).
-- The ends of sessions, set apart and indexed: looked up among a session's records, each candidate read its
-- session up to the upgrade (a server that never closes its GET streams: every attach, the session so far).
CREATE TEMP TABLE session_ends AS
SELECT id, ts_ms, session FROM records WHERE kind IN ('session.terminated', 'session.evicted') AND shadowed = 0;
CREATE INDEX temp.session_ends_at ON session_ends (session, ts_ms, id);

-- The events a server wrote for replay only (`attached: false`): no response body was live on that stream, and the
-- server knew it. A stream it so wrote to before a takeover had no writer left, whatever close the log lacks (an
-- export that begins after the client went away shows the buffering, not the close).
CREATE TEMP TABLE detached_writes AS
SELECT session, stream, ts_ms, id FROM events WHERE attached = 0;
CREATE INDEX temp.detached_writes_at ON detached_writes (session, stream, ts_ms, id);

-- each node's last line (node_totals' last_ms), looked up by node
CREATE TEMP TABLE node_last AS SELECT node, max(last_ms) AS last_ms FROM node_records WHERE node IS NOT NULL GROUP BY node;
CREATE INDEX temp.node_last_node ON node_last (node);

SELECT q.*, se.ts_ms - q.at_ms AS sent_after_ms, se.event_id AS sent_after_event, sx.node AS sent_after_node FROM (
SELECT upgrade_id, session, at_ms, up_node, old_stream, old_via, lane, decision, last_event_id, new_stream, closed_ts, fenced_ts,
  (SELECT r.node FROM records r WHERE r.id = retired_id) AS retired_node, old_node,
  -- the old writer's node's last line, where another node took over: one that logged nothing after may have died
  CASE WHEN old_node IS NOT NULL AND old_node IS NOT up_node THEN (SELECT t.last_ms FROM node_last t WHERE t.node = old_node) END AS old_node_last_ms,
  -- The takeover's own lines in an order that cannot have happened: another node logs, after it, what it follows
  -- (the old stream's opening or the send of its Last-Event-ID, within the clock-skew allowance; the send of an event
  -- it replayed, at any gap: facts/takeover-skew.sql). That node's clock runs ahead by at least the larger gap
  -- (dual-writer.ts).
  CASE WHEN opened_ts > at_ms AND opened_ts <= at_ms + :clock_skew_allowance_ms AND old_node IS NOT NULL AND old_node IS NOT up_node
    THEN opened_ts - at_ms END AS opened_after_ms,
  (SELECT e.id FROM events e INDEXED BY events_lookup JOIN records x ON x.id = e.id
   WHERE e.session = d.session AND e.event_id IN (d.last_event_id, d.first_replayed, d.last_replayed) AND e.lane = d.lane
     AND e.ts_ms > d.at_ms AND x.node IS NOT NULL AND x.node IS NOT d.up_node
     AND (e.ts_ms <= d.at_ms + :clock_skew_allowance_ms OR e.event_id IN (d.first_replayed, d.last_replayed))
   ORDER BY e.ts_ms DESC, e.id DESC LIMIT 1) AS sent_after_id,
  head_opened_id, (SELECT h.ts_ms FROM records h WHERE h.id = head_opened_id) AS head_opened_ms,
  (SELECT e.event_id FROM events e WHERE e.id = head_write_id) AS head_write_event,
  json_array(COALESCE(head_opened_id, opened_id,
    (SELECT min(e.id) FROM events e WHERE e.session = d.session AND e.lane = d.lane AND e.stream = d.old_stream)), upgrade_id, head_write_id, retired_id) AS evidence
FROM (
  -- A lineage's live head (facts in fold-session.ts markSuperseded): a stream the upgrade neither names nor resumes
  -- from, which an earlier accepted resumption opened. Its evidence: that resumption, this one, and the head's first
  -- write after this one, where it wrote again (the second writer seen at work).
  -- (read from the session's records after the takeover, up to the head's close or fence: a walk of its lane from
  -- the start, per takeover, was quadratic in a client that resumed from one position thousands of times)
  SELECT h.*,
    CASE WHEN head_opened_id IS NOT NULL THEN (SELECT r.id FROM records r INDEXED BY records_session
      WHERE r.session = h.session AND (r.ts_ms, r.id) > (h.at_ms, h.upgrade_id)
        AND r.ts_ms <= COALESCE(min(h.closed_ts, h.fenced_ts), h.closed_ts, h.fenced_ts, 9e18)
        AND r.kind = 'event.sent' AND r.stream = h.old_stream AND r.event_id IS NOT NULL
      ORDER BY r.session, r.ts_ms, r.id LIMIT 1) END AS head_write_id
  FROM (
  SELECT c.*,
    CASE WHEN c.decision = 'resume' AND c.up_stream IS NOT c.old_stream AND NOT EXISTS (
        SELECT 1 FROM events e INDEXED BY events_lookup
        WHERE e.session = c.session AND e.event_id = c.last_event_id AND e.lane = c.lane AND e.stream = c.old_stream
          AND (e.ts_ms, e.id) < (c.at_ms, c.upgrade_id))
      -- the latest before the takeover, read backwards from it: a walk of the head's own life, not of the session's
      THEN (SELECT o.id FROM records o INDEXED BY records_session
        WHERE o.session = c.session AND (o.ts_ms, o.id) < (c.at_ms, c.upgrade_id)
          AND o.kind = 'upgrade' AND o.shadowed = 0 AND o.new_stream = c.old_stream AND o.decision = 'resume' AND o.status BETWEEN 200 AND 299
        ORDER BY o.session DESC, o.ts_ms DESC, o.id DESC LIMIT 1) END AS head_opened_id
  FROM (
  SELECT u.id AS upgrade_id, s.session, u.ts_ms AS at_ms, u.node AS up_node, s.stream AS old_stream, s.via AS old_via, s.lane, s.node AS old_node,
    u.stream AS up_stream,
    u.decision, u.last_event_id, u.new_stream, s.closed_ts, s.fenced_ts, s.opened_id, s.opened_ts,
    u.first_replayed, CAST(json_extract(u.replayed_ids, '$[#-1]') AS TEXT) AS last_replayed,
    -- the later close or fence the message names ("retired only at"): the earlier of the two
    CASE WHEN s.fenced_id IS NULL OR (s.closed_id IS NOT NULL AND (s.closed_ts, s.closed_id) < (s.fenced_ts, s.fenced_id))
      THEN s.closed_id ELSE s.fenced_id END AS retired_id
  FROM streams s
  JOIN records u ON u.id = s.superseded_id
  WHERE (s.closed_id IS NULL OR (s.closed_ts, s.closed_id) > (u.ts_ms, u.id))
    AND (s.fenced_id IS NULL OR (s.fenced_ts, s.fenced_id) > (u.ts_ms, u.id))
    AND NOT EXISTS (
      SELECT 1 FROM session_ends x
      WHERE x.session = s.session AND (x.ts_ms, x.id) > (COALESCE(s.opened_ts, -1), COALESCE(s.opened_id, -1))
        AND (x.ts_ms, x.id) < (u.ts_ms, u.id))
    AND NOT EXISTS (
      SELECT 1 FROM detached_writes w
      WHERE w.session = s.session AND w.stream = s.stream AND (w.ts_ms, w.id) < (u.ts_ms, u.id))) c) h) d
) q LEFT JOIN events se ON se.id = q.sent_after_id LEFT JOIN records sx ON sx.id = q.sent_after_id
ORDER BY q.at_ms, q.upgrade_id, q.old_stream;
