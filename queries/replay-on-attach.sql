-- Which session resumptions (accepted upgrades without Last-Event-ID) replayed past events?
-- A replay shows as replayed > 0, a first_replayed or replayed_ids, or event.replayed records on the new stream.
WITH attaches AS (
  SELECT u.id, u.ts_ms, u.session, u.decision, u.new_stream, u.replayed, u.first_replayed, u.replayed_ids
  FROM upgrades u
  WHERE u.decision IN ('attach', 'resume') AND u.last_event_id IS NULL AND u.session IS NOT NULL
    AND u.status BETWEEN 200 AND 299
), logged_replays AS (
  SELECT a.id AS upgrade_id, min(x.id) AS first_id, count(*) AS n, group_concat(x.event_id, ', ') AS event_ids
  FROM attaches a
  JOIN records x ON x.session = a.session AND x.kind = 'event.replayed' AND x.shadowed = 0
    AND x.stream = a.new_stream AND (x.ts_ms, x.id) > (a.ts_ms, a.id)
  GROUP BY a.id
)
SELECT a.id AS upgrade_id, a.session, a.ts_ms AS at_ms, a.decision, a.new_stream, a.replayed, a.first_replayed,
  COALESCE(json_array_length(a.replayed_ids), 0) AS listed_ids, l.n AS replay_records, l.event_ids AS replay_record_ids,
  -- the upgrade's own counters prove it; otherwise the first event.replayed line does
  CASE WHEN a.replayed > 0 OR a.first_replayed IS NOT NULL OR json_array_length(a.replayed_ids) > 0
    THEN json_array(a.id) ELSE json_array(a.id, l.first_id) END AS evidence
FROM attaches a LEFT JOIN logged_replays l ON l.upgrade_id = a.id
WHERE a.replayed > 0 OR a.first_replayed IS NOT NULL OR json_array_length(a.replayed_ids) > 0 OR l.n > 0
ORDER BY a.ts_ms, a.id;
