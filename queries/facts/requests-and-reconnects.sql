-- Each session's server requests as their lives begin and end, and its accepted reconnects, in log order?
-- (A life can end before it begins: a 2xx answer logged before the send, clock skew. It holds no reconnect.)
-- src/detect/facts/pending-at-reconnects.ts walks it once, holding the requests pending at each reconnect
-- (the pending_at_upgrade view, src/store/views.ts, without listing every pair).
WITH lives AS MATERIALIZED (SELECT * FROM request_lives)
SELECT session, sent_ts AS ts_ms, sent_id AS id, 'sent' AS step, sent_id, request_id, method, stream, event_id, end_ts, end_id,
  NULL AS decision, NULL AS reemitted, NULL AS cancelled, NULL AS new_stream, NULL AS last_event_id
FROM lives
UNION ALL
SELECT session, end_ts, end_id, 'ended', sent_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM lives WHERE end_id IS NOT NULL
UNION ALL
SELECT session, ts_ms, id, 'reconnect', NULL, NULL, NULL, stream, NULL, NULL, NULL, decision, reemitted, cancelled, new_stream, last_event_id
FROM upgrades
WHERE decision IN ('resume', 'attach') AND status BETWEEN 200 AND 299 AND session IS NOT NULL
ORDER BY session, ts_ms, id;
