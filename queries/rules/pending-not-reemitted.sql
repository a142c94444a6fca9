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
  -- pending at the attach: the one definition, the view pending_at_upgrade (src/store/views.ts)
  SELECT p.upgrade_id, p.sent_id, p.request_id, p.method, p.stream,
    row_number() OVER (PARTITION BY p.upgrade_id ORDER BY p.sent_ts, p.sent_id) AS k
  FROM pending_at_upgrade p JOIN attaches a ON a.id = p.upgrade_id
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
