-- Which server-to-client requests were stranded and never taken care of?
-- Stranded: while the request was pending, its stream ended (closed, fenced, or its session ended) or was
-- superseded, or a reconnect of its session was rejected; a request sent to an already ended stream counts.
-- A close for polling (2025-11-25) ends the connection, not the stream (log-format.md): the resumption that
-- follows it supersedes the stream, and that is the cause; with none, the request waits for its client. Only
-- where the revision has polling (the polling_closes view): at 2025-03-26 or 2025-06-18 a poll close is a close.
-- Never taken care of: not answered (2xx; a 404 answer does not count), re-issued or cancelled before it timed
-- out, and it timed out or is still pending when the log ends.
-- Evidence: the request, the first thing that stranded it, its time-out.
-- within_window: still pending when the log ends, less than :orphan_window_ms (default 0: never) after it was
-- stranded; the rule reports it not knowable, for a log cut while its client may be coming back for it.
-- Only a request's first end of each kind can be its first cause: each is looked up by session and time, then read
-- by its id (joined with every later rejection, a storm of rejected reconnects cost each pending request the
-- storm's length). CROSS JOIN keeps the requests outside: the planner would scan them once per end.
CREATE TEMP TABLE session_ends AS
SELECT id, ts_ms, session FROM records WHERE kind IN ('session.terminated', 'session.evicted') AND shadowed = 0;
CREATE INDEX temp.session_ends_at ON session_ends (session, ts_ms, id);
CREATE TEMP TABLE rejected_reconnects AS
SELECT id, ts_ms, session FROM upgrades WHERE decision = 'reject' OR status NOT BETWEEN 200 AND 299;
CREATE INDEX temp.rejected_reconnects_at ON rejected_reconnects (session, ts_ms, id);

WITH req AS MATERIALIZED (
  SELECT q.*, s.opened_ts, s.opened_id, s.closed_id, s.closed_ts, s.close_reason, s.fenced_id, s.fenced_ts, s.superseded_id, s.superseded_ts,
    t.ts_ms AS timed_out_ts
  FROM requests q
  -- (CROSS JOIN: from the requests, each stream looked up by its key; the planner may otherwise scan one per stream)
  CROSS JOIN streams s ON s.session = q.session AND s.stream = q.stream
  LEFT JOIN records t ON t.id = q.timed_out_id
  LEFT JOIN records ans ON ans.id = q.answered_id
  LEFT JOIN records can ON can.id = q.cancelled_id
  LEFT JOIN records reis ON reis.id = q.reissued_id
  -- taken care of before it timed out (or at all, if it never did) rules it out
  WHERE NOT (ans.id IS NOT NULL AND (t.id IS NULL OR (ans.ts_ms, ans.id) < (t.ts_ms, t.id)))
    AND NOT (can.id IS NOT NULL AND (t.id IS NULL OR (can.ts_ms, can.id) < (t.ts_ms, t.id)))
    AND NOT (reis.id IS NOT NULL AND (t.id IS NULL OR (reis.ts_ms, reis.id) < (t.ts_ms, t.id)))
), refused_answers AS MATERIALIZED (
  SELECT session, request_id, ts_ms FROM records WHERE kind = 'request.answered' AND shadowed = 0 AND status NOT BETWEEN 200 AND 299
), causes AS (
  SELECT sent_id, closed_id AS cause_id, closed_ts AS cause_ts, 'closed' AS how FROM req
  WHERE closed_id IS NOT NULL AND (close_reason IS NOT 'poll' OR closed_id NOT IN (SELECT closed_id FROM polling_closes))
  UNION ALL
  SELECT sent_id, fenced_id, fenced_ts, 'fenced' FROM req WHERE fenced_id IS NOT NULL
  UNION ALL
  SELECT sent_id, superseded_id, superseded_ts, 'superseded' FROM req WHERE superseded_id IS NOT NULL
  UNION ALL
  -- the end of the session ends its streams (the first end after the stream opened)
  SELECT q.sent_id, x.id, x.ts_ms, 'session-ended' FROM req q
  CROSS JOIN records x ON x.id = (SELECT e.id FROM session_ends e WHERE e.session = q.session
    AND (e.ts_ms, e.id) > (COALESCE(q.opened_ts, q.sent_ts), COALESCE(q.opened_id, q.sent_id)) ORDER BY e.ts_ms, e.id LIMIT 1)
  UNION ALL
  -- a rejected reconnect of its session while it was pending (the first after it was sent)
  SELECT q.sent_id, x.id, x.ts_ms, 'reconnect-rejected' FROM req q
  CROSS JOIN records x ON x.id = (SELECT e.id FROM rejected_reconnects e WHERE e.session = q.session
    AND (e.ts_ms, e.id) > (q.sent_ts, q.sent_id) ORDER BY e.ts_ms, e.id LIMIT 1)
), first_cause AS (
  SELECT c.*, row_number() OVER (PARTITION BY c.sent_id ORDER BY c.cause_ts, c.cause_id) AS k
  FROM causes c JOIN req q ON q.sent_id = c.sent_id
  -- while pending: before the time-out, if any
  WHERE q.timed_out_id IS NULL OR (c.cause_ts, c.cause_id) < (q.timed_out_ts, q.timed_out_id)
), log_end AS (
  -- read only where a window asks for it (the one scan of every record's time)
  SELECT CASE WHEN :orphan_window_ms > 0 THEN (SELECT max(ts_ms) FROM records) END AS ts_ms
)
SELECT q.session, COALESCE(q.timed_out_ts, max(q.sent_ts, c.cause_ts)) AS at_ms,
  q.request_id, q.method, q.stream, q.sent_ts, c.how, c.cause_ts, u.decision AS cause_decision, u.status AS cause_status,
  u.new_stream AS cause_new_stream, q.timed_out_ts,
  -- a poll close taken as a close: the revision without polling that made it one, for the message
  CASE WHEN c.how = 'closed' AND q.close_reason = 'poll'
    THEN coalesce(u.protocol_version, (SELECT v.protocol_version FROM session_versions v WHERE v.session = q.session)) END AS unpolled_version,
  (SELECT count(*) FROM refused_answers a WHERE a.session = q.session AND a.request_id = q.request_id AND a.ts_ms >= q.sent_ts) AS failed_answers,
  json_array(q.sent_id, c.cause_id, q.timed_out_id) AS evidence,
  (SELECT ts_ms FROM log_end) AS log_end_ms,
  q.timed_out_id IS NULL AND (SELECT ts_ms FROM log_end) < max(q.sent_ts, c.cause_ts) + :orphan_window_ms AS within_window
FROM req q
JOIN first_cause c ON c.sent_id = q.sent_id AND c.k = 1
JOIN records u ON u.id = c.cause_id
-- (joined, not looked up per row: the view is then read once)
ORDER BY at_ms, q.sent_id;
