-- Which server-to-client requests were stranded and never taken care of?
-- Stranded: while the request was pending, its stream ended (closed, fenced, or its session ended) or was
-- superseded, or a reconnect of its session was rejected; a request sent to an already ended stream counts.
-- A close for polling (2025-11-25) ends the connection, not the stream (log-format.md): the resumption that
-- follows it supersedes the stream, and that is the cause; with none, the request waits for its client. Only
-- where the revision has polling (the polling_closes view): at 2025-03-26 or 2025-06-18 a poll close is a close.
-- Never taken care of: not answered (2xx; a 404 answer does not count), re-issued or cancelled before it timed
-- out, and it timed out or is still pending when the log ends.
-- Evidence: the request, the first thing that stranded it, what carried it (below), its time-out.
-- Carried: the first accepted resumption of the request's lineage (its stream's lane, by the stream the resumption
-- opened), after it was sent and before it timed out, that replayed its event (replayed_ids, first_replayed, an
-- event.replayed on the stream it opened, or the window of `replayed` events from first_replayed or after
-- Last-Event-ID) or whose Last-Event-ID is its event, which proves the client received it. It still stranded the
-- request (rules.md: re-issued under a fresh id or failed, nothing else), but the message says what did happen.
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

-- The accepted resumptions, each on the lineage (lane) of the stream it opened, else of the stream it resumed.
CREATE TEMP TABLE lineage_resumes AS
SELECT u.id, u.ts_ms, u.session, COALESCE(n.lane, o.lane) AS lane, u.new_stream, u.last_event_id, u.replayed,
  u.first_replayed, u.replayed_ids
FROM upgrades u
LEFT JOIN streams n ON n.session = u.session AND n.stream = u.new_stream
LEFT JOIN streams o ON o.session = u.session AND o.stream = u.stream
WHERE u.decision = 'resume' AND u.status BETWEEN 200 AND 299 AND u.session IS NOT NULL AND COALESCE(n.lane, o.lane) IS NOT NULL;
CREATE INDEX temp.lineage_resumes_opened ON lineage_resumes (session, new_stream, ts_ms, id);
CREATE INDEX temp.lineage_resumes_id ON lineage_resumes (id);

-- The windows a counter gives (no ids named): `replayed` events from first_replayed, else after Last-Event-ID, on
-- the lane as emitted before the resumption (the latest emission of the id there), as lane positions. (By
-- session and id: by id alone, a server numbering each session's events from 1 had every session's emissions read.)
CREATE TEMP TABLE counted_windows AS
SELECT id, ts_ms, session, lane, first_pos, first_pos + replayed - 1 AS last_pos FROM (
  SELECT r.id, r.ts_ms, r.session, r.lane, r.replayed,
    (SELECT a.lane_pos FROM events a INDEXED BY events_lookup WHERE a.session = r.session AND a.event_id = COALESCE(r.first_replayed, r.last_event_id)
      AND a.lane = r.lane AND (a.ts_ms, a.id) < (r.ts_ms, r.id) ORDER BY a.ts_ms DESC, a.id DESC LIMIT 1)
    + CASE WHEN r.first_replayed IS NULL THEN 1 ELSE 0 END AS first_pos
  FROM lineage_resumes r WHERE r.replayed > 0 AND r.replayed_ids IS NULL)
WHERE first_pos IS NOT NULL;

-- Which event each of them carried to the client, by the event's id: every id it names as replayed, the requests
-- its counted window holds (only a request's event is looked up), and its Last-Event-ID (how = 'received').
-- Each costs what it finds: the ids a line names, the requests a window holds (CROSS JOIN: from each window, the
-- lane's positions looked up; the planner would otherwise read every event once per window of its session).
CREATE TEMP TABLE carried_events AS
SELECT r.session, r.lane, CAST(j.value AS TEXT) AS event_id, r.ts_ms, r.id, 'replayed' AS how
FROM lineage_resumes r, json_each(r.replayed_ids) j WHERE r.replayed_ids IS NOT NULL
UNION ALL
SELECT session, lane, first_replayed, ts_ms, id, 'replayed' FROM lineage_resumes WHERE first_replayed IS NOT NULL
UNION ALL
SELECT session, lane, last_event_id, ts_ms, id, 'received' FROM lineage_resumes WHERE last_event_id IS NOT NULL
UNION ALL
-- an event.replayed on a stream a resumption opened: that resumption (the latest before it) replayed it
SELECT r.session, r.lane, x.event_id, r.ts_ms, r.id, 'replayed'
FROM records x
CROSS JOIN lineage_resumes r ON r.id = (SELECT v.id FROM lineage_resumes v WHERE v.session = x.session AND v.new_stream = x.stream
  AND (v.ts_ms, v.id) <= (x.ts_ms, x.id) ORDER BY v.ts_ms DESC, v.id DESC LIMIT 1)
WHERE x.kind = 'event.replayed' AND x.shadowed = 0 AND x.session IS NOT NULL
UNION ALL
SELECT w.session, w.lane, e.event_id, w.ts_ms, w.id, 'replayed'
FROM counted_windows w
CROSS JOIN events e ON e.session = w.session AND e.lane = w.lane AND e.lane_pos BETWEEN w.first_pos AND w.last_pos
WHERE e.request_id IS NOT NULL AND (e.ts_ms, e.id) < (w.ts_ms, w.id);
CREATE INDEX temp.carried_events_id ON carried_events (session, event_id, ts_ms, id);

WITH req AS MATERIALIZED (
  SELECT q.*, s.lane, s.opened_ts, s.opened_id, s.closed_id, s.closed_ts, s.close_reason, s.fenced_id, s.fenced_ts, s.superseded_id, s.superseded_ts,
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
    -- a stale header is no session (the stale_session_ids view): a request without one is none of this rule's
    AND q.session NOT IN (SELECT session FROM stale_session_ids)
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
  k.id AS carried_id, k.ts_ms AS carried_ts, k.how AS carried_how,
  json_array(q.sent_id, c.cause_id, k.id, q.timed_out_id) AS evidence,
  (SELECT ts_ms FROM log_end) AS log_end_ms,
  q.timed_out_id IS NULL AND (SELECT ts_ms FROM log_end) < max(q.sent_ts, c.cause_ts) + :orphan_window_ms AS within_window
FROM req q
JOIN first_cause c ON c.sent_id = q.sent_id AND c.k = 1
JOIN records u ON u.id = c.cause_id
LEFT JOIN carried_events k ON k.rowid = (SELECT x.rowid FROM carried_events x
  WHERE x.session = q.session AND x.event_id = q.event_id AND x.lane = q.lane
    AND (x.ts_ms, x.id) > (q.sent_ts, q.sent_id) AND (q.timed_out_id IS NULL OR (x.ts_ms, x.id) < (q.timed_out_ts, q.timed_out_id))
  ORDER BY x.ts_ms, x.id LIMIT 1)
-- (joined, not looked up per row: the view is then read once)
ORDER BY at_ms, q.sent_id;
