-- Which accepted stream resumptions re-emitted pending requests that the replay or the client already had?
-- A pending request emitted on the resumed lineage was either received before Last-Event-ID or is in the replay;
-- one written to another live stream (attached) was delivered there: re-emitting either duplicates it. Only
-- requests the client never had (pending on another stream, attached: false) may be re-emitted:
-- duplicates = reemitted - never delivered. A NULL reemitted was not logged: such resumptions are not knowable.
WITH resumes AS (
  SELECT u.id, u.ts_ms, u.session, u.last_event_id, u.stream, u.new_stream, u.reemitted,
    COALESCE(
      (SELECT s.lane FROM streams s WHERE s.session = u.session AND s.stream = u.stream),
      (SELECT e.lane FROM events e WHERE e.session = u.session AND e.event_id = u.last_event_id
         AND (e.ts_ms, e.id) < (u.ts_ms, u.id) ORDER BY e.ts_ms DESC, e.id DESC LIMIT 1)) AS lane,
    (SELECT i.created_id FROM incarnations i
     WHERE i.session = u.session AND (i.created_ts, i.created_id) < (u.ts_ms, u.id)
     ORDER BY i.created_ts DESC, i.created_id DESC LIMIT 1) AS created_id
  FROM upgrades u
  WHERE u.decision = 'resume' AND u.status BETWEEN 200 AND 299 AND u.session IS NOT NULL
    AND (u.reemitted > 0 OR u.reemitted IS NULL)
), pending_at AS MATERIALIZED (
  -- the view once, whole: it is driven by the requests, so a join per resumption would read it per resumption
  SELECT * FROM pending_at_upgrade
), pending AS (
  SELECT r.id AS upgrade_id, q.sent_id, q.request_id, q.stream,
    (s.lane IS r.lane) AS on_lane,
    (s.lane IS NOT r.lane AND COALESCE(d.attached, 1) = 0) AS never_delivered
  FROM resumes r
  -- pending at the resume: the one definition, the view pending_at_upgrade (src/store/views.ts)
  JOIN pending_at q ON q.upgrade_id = r.id
  LEFT JOIN streams s ON s.session = q.session AND s.stream = q.stream
  -- The emission that carried the request: its event.sent, else the request.sent itself.
  LEFT JOIN events d ON d.id = COALESCE(
    (SELECT e.id FROM events e WHERE e.session = q.session AND e.event_id = q.event_id AND e.stream IS q.stream LIMIT 1), q.sent_id)
), ranked AS (
  SELECT *,
    row_number() OVER (PARTITION BY upgrade_id, never_delivered ORDER BY on_lane DESC, sent_id) AS k,
    sum(never_delivered) OVER (PARTITION BY upgrade_id) AS never_delivered_count
  FROM pending
)
SELECT r.id AS upgrade_id, r.session, r.ts_ms AS at_ms, r.last_event_id, r.stream, r.new_stream, r.reemitted,
  count(p.sent_id) FILTER (WHERE p.on_lane) AS pending_on_lane,
  count(p.sent_id) FILTER (WHERE p.never_delivered) AS never_delivered,
  r.reemitted - count(p.sent_id) FILTER (WHERE p.never_delivered) AS duplicates,
  (r.created_id IS NOT NULL) AS history_logged,
  json_group_array(p.request_id ORDER BY p.k) FILTER (WHERE p.on_lane) AS on_lane_ids,
  json_group_array(p.request_id ORDER BY p.k) FILTER (WHERE NOT p.on_lane AND NOT p.never_delivered) AS delivered_elsewhere_ids,
  json_insert(json_group_array(p.sent_id ORDER BY p.k)
      FILTER (WHERE NOT p.never_delivered AND p.k <= r.reemitted - p.never_delivered_count),
    '$[#]', r.id) AS evidence
FROM resumes r LEFT JOIN ranked p ON p.upgrade_id = r.id
GROUP BY r.id
HAVING r.reemitted IS NULL OR r.reemitted > count(p.sent_id) FILTER (WHERE p.never_delivered)
ORDER BY r.ts_ms, r.id;
