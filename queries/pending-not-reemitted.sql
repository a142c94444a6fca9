-- Which accepted attaches found server-to-client requests pending and re-emitted or cancelled fewer of them?
-- Pending at the attach: sent in the current incarnation before it, and not answered (2xx), cancelled,
-- re-issued or timed out before it. A NULL reemitted/cancelled was not logged: counters_logged = 0 rows are
-- not knowable, not violations. Evidence: as many pending requests as it takes to exceed the counters, then the attach.
WITH attaches AS (
  SELECT u.id, u.ts_ms, u.session, u.new_stream, u.reemitted, u.cancelled,
    (SELECT i.created_id FROM incarnations i
     WHERE i.session = u.session AND (i.created_ts, i.created_id) < (u.ts_ms, u.id)
     ORDER BY i.created_ts DESC, i.created_id DESC LIMIT 1) AS created_id
  FROM upgrades u
  WHERE u.decision = 'attach' AND u.status BETWEEN 200 AND 299 AND u.session IS NOT NULL
), pending AS (
  SELECT a.id AS upgrade_id, q.sent_id, q.request_id, q.method, q.stream,
    row_number() OVER (PARTITION BY a.id ORDER BY q.sent_ts, q.sent_id) AS k
  FROM attaches a
  JOIN requests q ON q.session = a.session AND (q.sent_ts, q.sent_id) < (a.ts_ms, a.id)
  LEFT JOIN incarnations i ON i.created_id = a.created_id
  LEFT JOIN records ans ON ans.id = q.answered_id
  LEFT JOIN records can ON can.id = q.cancelled_id
  LEFT JOIN records reis ON reis.id = q.reissued_id
  LEFT JOIN records tmo ON tmo.id = q.timed_out_id
  WHERE (i.created_id IS NULL OR (q.sent_ts, q.sent_id) > (i.created_ts, i.created_id))
    AND (ans.id IS NULL OR (ans.ts_ms, ans.id) > (a.ts_ms, a.id))
    AND (can.id IS NULL OR (can.ts_ms, can.id) > (a.ts_ms, a.id))
    AND (reis.id IS NULL OR (reis.ts_ms, reis.id) > (a.ts_ms, a.id))
    AND (tmo.id IS NULL OR (tmo.ts_ms, tmo.id) > (a.ts_ms, a.id))
)
SELECT a.id AS upgrade_id, a.session, a.ts_ms AS at_ms, a.new_stream, a.reemitted, a.cancelled,
  (a.reemitted IS NOT NULL AND a.cancelled IS NOT NULL) AS counters_logged,
  count(*) AS pending,
  json_group_array(p.request_id ORDER BY p.k) AS pending_ids,
  json_group_array(p.method ORDER BY p.k) AS pending_methods,
  json_insert(
    json_group_array(p.sent_id ORDER BY p.k) FILTER (WHERE p.k <= COALESCE(a.reemitted, 0) + COALESCE(a.cancelled, 0) + 1),
    '$[#]', a.id) AS evidence
FROM attaches a JOIN pending p ON p.upgrade_id = a.id
GROUP BY a.id
HAVING count(*) > COALESCE(a.reemitted, 0) + COALESCE(a.cancelled, 0)
ORDER BY a.ts_ms, a.id;
