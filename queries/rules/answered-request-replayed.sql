-- Which accepted resumptions had, in their replay window, a server request that was already answered?
-- The window: events of the resumed lineage after Last-Event-ID, emitted before the upgrade. Answered: a 2xx
-- request.answered before the upgrade (a 404 answer was not taken). Evidence: the Last-Event-ID event, the
-- request's event, its answer, the upgrade.
WITH resumes AS (
  SELECT u.id, u.ts_ms, u.session, u.last_event_id, u.stream, u.new_stream FROM upgrades u
  WHERE u.decision = 'resume' AND u.status BETWEEN 200 AND 299 AND u.session IS NOT NULL AND u.last_event_id IS NOT NULL
), anchored AS (
  -- where Last-Event-ID was emitted in the presented session: on the named stream if it was, else the latest
  SELECT r.*, e.id AS anchor_id, e.lane, e.lane_pos,
    row_number() OVER (PARTITION BY r.id ORDER BY (e.stream IS r.stream) DESC, e.ts_ms DESC, e.id DESC) AS k
  FROM resumes r
  JOIN events e ON e.session = r.session AND e.event_id = r.last_event_id AND (e.ts_ms, e.id) < (r.ts_ms, r.id)
), replayed_requests AS (
  SELECT a.id AS upgrade_id, w.id AS event_row, w.ts_ms AS event_ms, w.event_id, w.request_id, w.method,
    (SELECT min(x.id) FROM records x
     WHERE x.session = w.session AND x.kind = 'request.answered' AND x.shadowed = 0 AND x.request_id = w.request_id
       AND x.status BETWEEN 200 AND 299 AND (x.ts_ms, x.id) > (w.ts_ms, w.id) AND (x.ts_ms, x.id) < (a.ts_ms, a.id)) AS answer_id
  FROM anchored a
  JOIN events w ON w.session = a.session AND w.lane = a.lane AND w.lane_pos > a.lane_pos
    AND (w.ts_ms, w.id) < (a.ts_ms, a.id) AND w.request_id IS NOT NULL
  WHERE a.k = 1
), answered AS (
  SELECT p.*, x.ts_ms AS answered_ms,
    row_number() OVER (PARTITION BY p.upgrade_id ORDER BY p.event_ms, p.event_row) AS k,
    count(*) OVER (PARTITION BY p.upgrade_id) AS n,
    group_concat(p.request_id || ' (event ' || p.event_id || ')', ', ')
      OVER (PARTITION BY p.upgrade_id ORDER BY p.event_ms, p.event_row ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS all_requests
  FROM replayed_requests p JOIN records x ON x.id = p.answer_id
)
SELECT r.id AS upgrade_id, r.session, r.ts_ms AS at_ms, r.last_event_id, r.stream, r.new_stream,
  a.request_id, a.method, a.event_id, a.answered_ms, a.n AS answered_in_window, a.all_requests,
  json_array(an.anchor_id, a.event_row, a.answer_id, r.id) AS evidence
FROM answered a
JOIN resumes r ON r.id = a.upgrade_id
JOIN anchored an ON an.id = r.id AND an.k = 1
WHERE a.k = 1
ORDER BY r.ts_ms, r.id;
