-- Which streams were written to (an event or a server request) after an accepted upgrade had superseded them?
-- One row per superseded stream; evidence: the superseding upgrade, then the first write after it (late_ids: every
-- late write, which the message counts and lists, so the finding cites them all).
WITH writes AS (
  SELECT e.id, e.session, e.stream, e.ts_ms, e.event_id, e.request_id FROM events e
  UNION ALL
  -- a server request without an emitted event of its own (no event_id, or none logged as event.sent)
  SELECT q.sent_id, q.session, q.stream, q.sent_ts, q.event_id, q.request_id FROM requests q
  WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.session = q.session AND e.event_id = q.event_id AND e.stream = q.stream)
), late AS (
  SELECT w.*, s.superseded_id, s.superseded_ts,
    row_number() OVER (PARTITION BY w.session, w.stream ORDER BY w.ts_ms, w.id) AS k,
    count(*) OVER (PARTITION BY w.session, w.stream) AS n,
    group_concat(CASE WHEN w.request_id IS NOT NULL THEN 'request ' || w.request_id ELSE 'event ' || w.event_id END, ', ')
      OVER (PARTITION BY w.session, w.stream ORDER BY w.ts_ms, w.id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS what,
    json_group_array(w.id)
      OVER (PARTITION BY w.session, w.stream ORDER BY w.ts_ms, w.id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS late_ids
  FROM writes w
  JOIN streams s ON s.session = w.session AND s.stream = w.stream AND s.superseded_id IS NOT NULL
  WHERE (w.ts_ms, w.id) > (s.superseded_ts, s.superseded_id)
)
SELECT l.session, l.ts_ms AS at_ms, l.stream, l.n AS late_writes, l.what,
  u.decision, u.new_stream, u.ts_ms AS superseded_ms,
  json_array(u.id, l.id) AS evidence, l.late_ids
FROM late l JOIN records u ON u.id = l.superseded_id
WHERE l.k = 1
ORDER BY l.ts_ms, l.id;
