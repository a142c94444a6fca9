-- Each session's server requests as their lives begin and end, and its accepted reconnects, in log order?
-- (A life can end before it begins: a 2xx answer logged before the send, clock skew. It holds no reconnect.)
-- src/detect/facts/pending-at-reconnects.ts walks it once, holding the requests pending at each reconnect
-- (the pending_at_upgrade view, src/store/views.ts, without listing every pair).
-- A request's lane is its stream's; `attached` is its carrier's (the emission that carried it: its
-- event.sent, else the request.sent itself). A resume that logged re-emitting (or no count) has a lane, the
-- resumed stream's, else where its Last-Event-ID was last sent before it, and history_logged: a creation of
-- the session comes before it (duplicate-reemit reads them; other reconnects have neither).
-- A request sent on a POST stream is `held` while that stream is open: a client that did not restart can still
-- read it there (pending-not-reemitted counts it all the same, and says so). It is released at the stream's end
-- (its first close that is not for polling, which ends the connection only where the revision polls: the
-- polling_closes view; its fence or its supersession). A
-- request sent after its POST stream ended is not held.
-- The poll closes that end the connection only, built once and indexed: looked up from the per-request search
-- for a POST stream's end, the view itself would be computed for every request.
CREATE TEMP TABLE request_poll_closes AS SELECT closed_id FROM polling_closes;
CREATE INDEX temp.request_poll_closes_id ON request_poll_closes (closed_id);
WITH lives AS MATERIALIZED (
  SELECT q.*, s.lane, CASE WHEN s.via = 'post' THEN (SELECT r.id FROM records r
    WHERE r.id IN (CASE WHEN s.close_reason IS NOT 'poll' OR NOT EXISTS (SELECT 1 FROM request_poll_closes p WHERE p.closed_id = s.closed_id) THEN s.closed_id END, s.fenced_id, s.superseded_id)
    ORDER BY r.ts_ms, r.id LIMIT 1) END AS post_end_id,
    s.via = 'post' AS on_post
  FROM request_lives q
  LEFT JOIN streams s ON s.session = q.session AND s.stream = q.stream
), held AS MATERIALIZED (
  SELECT q.*, r.ts_ms AS release_ts, r.id AS release_id,
    coalesce(q.on_post AND (r.id IS NULL OR (r.ts_ms, r.id) > (q.sent_ts, q.sent_id)), 0) AS held
  FROM lives q LEFT JOIN records r ON r.id = q.post_end_id
)
SELECT q.session, q.sent_ts AS ts_ms, q.sent_id AS id, 'sent' AS step, q.sent_id, q.request_id, q.method, q.stream,
  q.end_ts, q.end_id, q.lane, COALESCE(d.attached, 1) AS attached,
  NULL AS decision, NULL AS reemitted, NULL AS cancelled, NULL AS new_stream, NULL AS last_event_id, NULL AS history_logged,
  q.held
FROM held q
LEFT JOIN events d ON d.id = COALESCE(
  (SELECT e.id FROM events e WHERE e.session = q.session AND e.event_id = q.event_id AND e.stream IS q.stream LIMIT 1), q.sent_id)
UNION ALL
SELECT session, end_ts, end_id, 'ended', sent_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM lives WHERE end_id IS NOT NULL
UNION ALL
-- (the walk releases a request only while it is pending)
SELECT session, release_ts, release_id, 'released', sent_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM held WHERE held AND release_id IS NOT NULL
UNION ALL
SELECT u.session, u.ts_ms, u.id, 'reconnect', NULL, NULL, NULL, u.stream, NULL, NULL,
  CASE WHEN u.decision = 'resume' AND (u.reemitted IS NULL OR u.reemitted > 0) THEN COALESCE(
    (SELECT s.lane FROM streams s WHERE s.session = u.session AND s.stream = u.stream),
    (SELECT e.lane FROM events e WHERE e.session = u.session AND e.event_id = u.last_event_id
       AND (e.ts_ms, e.id) < (u.ts_ms, u.id) ORDER BY e.ts_ms DESC, e.id DESC LIMIT 1)) END,
  NULL, u.decision, u.reemitted, u.cancelled, u.new_stream, u.last_event_id,
  u.decision = 'resume' AND (u.reemitted IS NULL OR u.reemitted > 0)
    AND EXISTS (SELECT 1 FROM incarnations i WHERE i.session = u.session AND (i.created_ts, i.created_id) < (u.ts_ms, u.id)),
  NULL
FROM upgrades u
WHERE u.decision IN ('resume', 'attach') AND u.status BETWEEN 200 AND 299 AND u.session IS NOT NULL
ORDER BY 1, 2, 3;
