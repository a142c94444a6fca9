-- Which streams were written to (an event or a server request) after an accepted upgrade had superseded them?
-- One row per superseded stream; evidence: the superseding upgrade, then the first write after it (late_ids: every
-- late write, which the message counts and lists, so the finding cites them all).
-- An event the superseding resumption replayed was written before it, whatever the clocks say: a node whose
-- clock runs behind logs the resumption "before" the write it replays (the summary's skew estimate reads the
-- same causality). It reached the client, so it is not a late write. So did the event the resumption names
-- as its Last-Event-ID, and every write before it on that stream (one node's clock orders them). And every write
-- before the send of an event it replayed, logged by another node than the resumption's: that send came before
-- the resumption, so everything its node wrote to the stream before it did too (a node 3 s behind made the event
-- a replay skipped a "late write", where it was a silent-truncation).
CREATE TEMP TABLE replayed_on AS
SELECT DISTINCT session, stream, event_id, of_stream FROM records
WHERE kind = 'event.replayed' AND shadowed = 0 AND session IS NOT NULL AND stream IS NOT NULL AND event_id IS NOT NULL;
CREATE INDEX temp.replayed_on_key ON replayed_on (session, stream, event_id);

-- Per superseding resumption, the last write to the stream it resumed that it replayed, on another node (ts_ms, id).
CREATE TEMP TABLE replay_horizons AS
WITH resumed AS (
  SELECT u.id AS up_id, u.session, u.stream, u.node, u.first_replayed, u.replayed_ids, u.new_stream
  FROM streams s JOIN records u ON u.id = s.superseded_id
  WHERE s.superseded_id IS NOT NULL AND u.stream = s.stream
), replayed_ids AS (
  SELECT up_id, session, stream, node, first_replayed AS event_id FROM resumed WHERE first_replayed IS NOT NULL
  UNION
  SELECT r.up_id, r.session, r.stream, r.node, CAST(j.value AS TEXT) FROM resumed r, json_each(r.replayed_ids) j WHERE r.replayed_ids IS NOT NULL
  UNION
  SELECT r.up_id, r.session, r.stream, r.node, x.event_id FROM resumed r
  JOIN replayed_on x ON x.session = r.session AND x.stream = r.new_stream AND (x.of_stream IS NULL OR x.of_stream = r.stream)
), sends AS (
  SELECT i.up_id, e.ts_ms, e.id, row_number() OVER (PARTITION BY i.up_id ORDER BY e.ts_ms DESC, e.id DESC) AS k
  FROM replayed_ids i JOIN events e ON e.session = i.session AND e.event_id = i.event_id AND e.stream = i.stream
  JOIN records x ON x.id = e.id
  WHERE x.node IS NOT NULL AND x.node IS NOT i.node
)
SELECT up_id, ts_ms, id FROM sends WHERE k = 1;
CREATE INDEX temp.replay_horizons_up ON replay_horizons (up_id);

WITH writes AS (
  SELECT e.id, e.session, e.stream, e.ts_ms, e.event_id, e.request_id FROM events e
  UNION ALL
  -- a server request without an emitted event of its own (no event_id, or none logged as event.sent)
  SELECT q.sent_id, q.session, q.stream, q.sent_ts, q.event_id, q.request_id FROM requests q
  WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.session = q.session AND e.event_id = q.event_id AND e.stream = q.stream)
), late AS (
  -- driven by the writes, each probing its stream once: from the streams, each walked its session's events
  SELECT w.*, s.superseded_id FROM writes w
  CROSS JOIN streams s ON s.session = w.session AND s.stream = w.stream AND s.superseded_id IS NOT NULL
  JOIN records u ON u.id = s.superseded_id
  LEFT JOIN replay_horizons h ON h.up_id = u.id
  WHERE (w.ts_ms, w.id) > (s.superseded_ts, s.superseded_id)
    AND NOT (u.stream IS w.stream AND h.up_id IS NOT NULL AND (w.ts_ms, w.id) <= (h.ts_ms, h.id))
    AND NOT (w.event_id IS NOT NULL AND u.stream IS w.stream AND (
      w.event_id IS u.first_replayed
      OR (u.replayed_ids IS NOT NULL AND w.event_id IN (SELECT CAST(j.value AS TEXT) FROM json_each(u.replayed_ids) j))
      OR EXISTS (SELECT 1 FROM replayed_on x
        WHERE x.session = w.session AND x.stream = u.new_stream AND x.event_id = w.event_id
          AND (x.of_stream IS NULL OR x.of_stream = w.stream))
      OR EXISTS (SELECT 1 FROM events c
        WHERE c.session = w.session AND c.event_id = u.last_event_id AND c.stream = w.stream
          AND (c.ts_ms, c.id) >= (w.ts_ms, w.id))))
), per_stream AS (
  -- aggregates per stream, not windows over it: a window's whole-partition list is copied into every row,
  -- quadratic in a stream's late writes (the very streams this rule is about)
  SELECT session, stream, superseded_id, count(*) AS n, min(ts_ms) AS first_ts,
    group_concat(CASE WHEN request_id IS NOT NULL THEN 'request ' || request_id ELSE 'event ' || event_id END, ', ' ORDER BY ts_ms, id) AS what,
    json_group_array(id ORDER BY ts_ms, id) AS late_ids
  FROM late GROUP BY session, stream
)
SELECT p.session, p.first_ts AS at_ms, p.stream, p.n AS late_writes, p.what,
  u.decision, u.new_stream, u.ts_ms AS superseded_ms,
  json_array(u.id, p.late_ids ->> '$[0]') AS evidence, p.late_ids
FROM per_stream p JOIN records u ON u.id = p.superseded_id
ORDER BY p.first_ts, p.late_ids ->> '$[0]';
