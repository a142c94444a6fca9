-- Which accepted upgrades superseded a stream that was neither closed nor fenced at that moment (two writers)?
-- Closed or fenced must come strictly before the upgrade in log order; the end of the session also ends a stream.
-- Evidence: the old stream's opening, then the upgrade that took over from it, then its later close or fence.
SELECT u.id AS upgrade_id, s.session, u.ts_ms AS at_ms, s.stream AS old_stream, s.via AS old_via, s.lane,
  u.decision, u.last_event_id, u.new_stream,
  s.closed_ts, s.fenced_ts,
  json_array(COALESCE(s.opened_id,
    (SELECT min(e.id) FROM events e WHERE e.session = s.session AND e.lane = s.lane AND e.stream = s.stream)), u.id,
    -- the later close or fence the message names ("retired only at"): the earlier of the two
    CASE WHEN s.fenced_id IS NULL OR (s.closed_id IS NOT NULL AND (s.closed_ts, s.closed_id) < (s.fenced_ts, s.fenced_id))
      THEN s.closed_id ELSE s.fenced_id END) AS evidence
FROM streams s
JOIN records u ON u.id = s.superseded_id
WHERE (s.closed_id IS NULL OR (s.closed_ts, s.closed_id) > (u.ts_ms, u.id))
  AND (s.fenced_id IS NULL OR (s.fenced_ts, s.fenced_id) > (u.ts_ms, u.id))
  AND NOT EXISTS (
    SELECT 1 FROM records x
    WHERE x.session = s.session AND x.kind IN ('session.terminated', 'session.evicted') AND x.shadowed = 0
      AND (x.ts_ms, x.id) < (u.ts_ms, u.id)
      AND (s.opened_id IS NULL OR (x.ts_ms, x.id) > (s.opened_ts, s.opened_id)))
ORDER BY u.ts_ms, u.id, s.stream;
