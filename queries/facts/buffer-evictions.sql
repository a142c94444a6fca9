-- What took events out of the replay buffers: buffer trims, and evictions that dropped a session's event log?
-- For a trim: the lane it trims and where its oldest_retained was sent.
-- Read by the rules that judge reconnects, through detect/facts/reconnect-facts.ts (Evictions):
-- event-id-regression, foreign-event-id, phantom-event-id, resume-across-state-change, resume-after-end,
-- silent-fork, silent-reset, silent-truncation.
SELECT t.id, t.kind, t.session, t.ts_ms AS at_ms, t.stream, s.lane AS stream_lane, t.oldest_retained,
  o.id AS oldest_id, o.lane AS oldest_lane, o.lane_pos AS oldest_pos, o.ts_ms AS oldest_ts, NULL AS reason
FROM records t
LEFT JOIN streams s ON s.session = t.session AND s.stream = t.stream
LEFT JOIN events o ON o.id = (
  SELECT e.id FROM events e WHERE e.session = t.session AND e.event_id = t.oldest_retained AND (e.ts_ms, e.id) < (t.ts_ms, t.id)
  ORDER BY e.ts_ms DESC, e.id DESC LIMIT 1)
WHERE t.kind = 'buffer.trimmed' AND t.shadowed = 0
UNION ALL
SELECT v.id, v.kind, v.session, v.ts_ms, NULL, NULL, NULL, NULL, NULL, NULL, NULL, v.reason
FROM records v
WHERE v.kind = 'session.evicted' AND v.shadowed = 0 AND COALESCE(v.log_evicted, 1) = 1
ORDER BY at_ms, id;
