-- Which accepted upgrades superseded a stream that was neither closed nor fenced at that moment (two writers)?
-- Closed or fenced must come strictly before the upgrade in log order; the end of the session also ends a stream.
-- Evidence: the old stream's opening, then the upgrade that took over from it, then its later close or fence.
-- The ends of sessions, set apart and indexed: looked up among a session's records, each candidate read its
-- session up to the upgrade (a server that never closes its GET streams: every attach, the session so far).
CREATE TEMP TABLE session_ends AS
SELECT id, ts_ms, session FROM records WHERE kind IN ('session.terminated', 'session.evicted') AND shadowed = 0;
CREATE INDEX temp.session_ends_at ON session_ends (session, ts_ms, id);

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
    SELECT 1 FROM session_ends x
    WHERE x.session = s.session AND (x.ts_ms, x.id) > (COALESCE(s.opened_ts, -1), COALESCE(s.opened_id, -1))
      AND (x.ts_ms, x.id) < (u.ts_ms, u.id))
ORDER BY u.ts_ms, u.id, s.stream;
