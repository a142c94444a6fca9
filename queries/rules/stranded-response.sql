-- Which responses to client requests were written only for replay and never delivered?
-- Written only for replay: an event.sent with rpc_kind response that is attached: false, or that was written after
-- its stream had closed (with nothing reopening that stream id in between).
-- Never delivered (how):
--   stateless     it has no session (or only a stale header, the stale_session_ids view): without sessions
--                 (2026-07-28) no Last-Event-ID can ask for it;
--   no-position   the client holds no position of the stream's lineage before it (no event of the lineage was
--                 delivered before it, no accepted resumption presented one: a stream closed before its priming
--                 event): stranded at once, whatever follows;
--   session-ended no accepted resumption of the lineage from a position before it came before the session ended;
--   never-resumed none came before the log ends, which is more than :stranding_window_ms (default 60000) after it;
--   pending       none came yet, and the log ends within the stranding window with the session live: not knowable.
-- A position is an event of the lineage before the response (lane order); a Last-Event-ID the log never shows
-- emitted, presented to resume this lineage, is taken as one (and as before the response unless both are numbers
-- and it is not smaller).
-- The end of the log is its latest record, as stale-writer-blocks-reconnect reads it (live mode copies that record).
-- Evidence: the response; the close it came after (or the stream's opening and close, when the stream carried no id
-- the client could resume from); the end of the session that settled it.
WITH sessionless_closes AS MATERIALIZED (
  -- the derived streams hold sessions' streams only; a stream without a session ends at its first close (k = 1,
  -- tested in the join: filtered here, the CTE gets no automatic index and every response scanned all of it)
  SELECT stream, id, ts_ms, reason, row_number() OVER (PARTITION BY stream ORDER BY ts_ms, id) AS k
  FROM records WHERE kind = 'stream.closed' AND session IS NULL AND shadowed = 0
), responses AS MATERIALIZED (
  SELECT r.id, r.ts_ms, r.session, r.stream, r.event_id, r.rpc_id, COALESCE(r.attached, 1) AS attached, e.lane, e.lane_pos,
    s.opened_id, COALESCE(s.closed_id, c.id) AS closed_id, COALESCE(s.closed_ts, c.ts_ms) AS closed_ts,
    COALESCE(s.close_reason, c.reason) AS close_reason
  FROM records r
  LEFT JOIN streams s ON s.session = r.session AND s.stream = r.stream
  LEFT JOIN sessionless_closes c ON r.session IS NULL AND c.stream = r.stream AND c.k = 1
  LEFT JOIN events e ON e.id = r.id
  WHERE r.kind = 'event.sent' AND r.shadowed = 0 AND r.rpc_kind = 'response'
), for_replay AS MATERIALIZED (
  SELECT f.*, f.closed_id IS NOT NULL AND (f.closed_ts, f.closed_id) < (f.ts_ms, f.id) AS after_close
  FROM responses f
  WHERE f.attached = 0 OR (
    f.closed_id IS NOT NULL AND (f.closed_ts, f.closed_id) < (f.ts_ms, f.id)
    -- a stream id a server reuses (opened again, or the new stream of an accepted upgrade) is live again
    AND NOT EXISTS (
      SELECT 1 FROM records x
      WHERE x.session = f.session AND x.ts_ms BETWEEN f.closed_ts AND f.ts_ms
        AND (x.ts_ms, x.id) > (f.closed_ts, f.closed_id) AND (x.ts_ms, x.id) < (f.ts_ms, f.id) AND x.shadowed = 0
        AND ((x.kind = 'stream.opened' AND x.stream = f.stream)
          OR (x.kind = 'upgrade' AND x.new_stream = f.stream AND x.status BETWEEN 200 AND 299))))
), resumes AS MATERIALIZED (
  -- accepted resumptions, the lane of the stream each names, and whether the session ever emitted its Last-Event-ID
  SELECT u.id, u.ts_ms, u.session, u.last_event_id, us.lane,
    EXISTS (SELECT 1 FROM events l WHERE l.session = u.session AND l.event_id = u.last_event_id) AS placed
  FROM records u LEFT JOIN streams us ON us.session = u.session AND us.stream = u.stream
  WHERE u.kind = 'upgrade' AND u.shadowed = 0 AND u.decision = 'resume' AND u.status BETWEEN 200 AND 299
    AND u.session IN (SELECT session FROM for_replay)
), resume_points AS MATERIALIZED (
  -- where a placed Last-Event-ID sits: its first position in each lane that emitted it
  SELECT u.id, u.ts_ms, u.session, l.lane, min(l.lane_pos) AS pos
  FROM resumes u JOIN events l ON l.session = u.session AND l.event_id = u.last_event_id
  WHERE u.placed AND (l.session, l.lane) IN (SELECT session, lane FROM for_replay)
  GROUP BY u.id, l.lane
), judged AS MATERIALIZED (
  SELECT f.*,
    -- the client holds a position of the lineage before it: an event of it delivered before it, a resumption before
    -- it from an id the lineage emitted, or a resumption of the lineage from an id the session never emitted
    f.lane IS NOT NULL AND (
      EXISTS (
        SELECT 1 FROM events p JOIN streams ps ON ps.session = p.session AND ps.stream = p.stream
        WHERE p.session = f.session AND p.lane = f.lane AND p.lane_pos < f.lane_pos AND p.attached = 1
          AND (ps.closed_id IS NULL OR (p.ts_ms, p.id) < (ps.closed_ts, ps.closed_id)))
      OR EXISTS (SELECT 1 FROM resume_points u WHERE u.session = f.session AND u.lane = f.lane AND (u.ts_ms, u.id) < (f.ts_ms, f.id))
      OR EXISTS (SELECT 1 FROM resumes u WHERE u.session = f.session AND u.lane = f.lane AND NOT u.placed)
    ) AS held
  FROM for_replay f
), moments AS MATERIALIZED (
  -- one timeline per session of its ends, its resumptions and its responses held for replay, numbered by the ends
  -- before each (epoch): what may rescue a response follows it in its lane and epoch. Read in one ordered pass, not
  -- per response, so that a long polling session (a resumption per response) costs linear time.
  SELECT t.*, sum(t.what = 'end') OVER (PARTITION BY t.session ORDER BY t.ts_ms, t.id ROWS UNBOUNDED PRECEDING) AS epoch
  FROM (
    SELECT session, ts_ms, id, 'end' AS what, NULL AS lane, NULL AS pos, 0 AS other_id, NULL AS id_number FROM records
    WHERE kind IN ('session.terminated', 'session.evicted') AND shadowed = 0 AND session IS NOT NULL
    UNION ALL
    SELECT session, ts_ms, id, 'point', lane, pos, 0, NULL FROM resume_points
    UNION ALL
    -- an id the session never emitted rescues a response unless both are numbers and it is not smaller
    SELECT session, ts_ms, id, 'unplaced', lane, NULL,
      last_event_id IS NOT NULL AND NOT (last_event_id NOT GLOB '*[^0-9]*' AND last_event_id <> ''),
      CASE WHEN last_event_id NOT GLOB '*[^0-9]*' AND last_event_id <> '' THEN CAST(last_event_id AS INTEGER) END
    FROM resumes WHERE NOT placed AND lane IS NOT NULL
    UNION ALL
    SELECT session, ts_ms, id, 'response', lane, lane_pos, 0, NULL FROM judged WHERE session IS NOT NULL) t
), reach AS MATERIALIZED (
  -- for each response: the resumptions of its lineage after it and before its session's next end
  SELECT id,
    min(pos) FILTER (WHERE what = 'point') OVER later AS point,
    max(what = 'unplaced') OVER later AS unplaced,
    max(what = 'unplaced' AND other_id) OVER later AS unplaced_other,
    min(id_number) FILTER (WHERE what = 'unplaced') OVER later AS unplaced_number,
    what, session, epoch
  FROM moments WHERE what <> 'end'
  WINDOW later AS (PARTITION BY session, lane, epoch ORDER BY ts_ms, id ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
), settled AS (
  SELECT j.*, e.id AS end_id, e.ts_ms AS end_ts,
    j.held AND (
      (r.point < j.lane_pos) IS 1
      OR (CASE WHEN j.event_id NOT GLOB '*[^0-9]*' AND j.event_id <> ''
        THEN r.unplaced_other OR r.unplaced_number < CAST(j.event_id AS INTEGER)
        ELSE r.unplaced END) IS 1) AS rescued
  FROM judged j
  LEFT JOIN reach r ON r.id = j.id AND r.what = 'response'
  -- the end of its session after it (the end of a session ends its streams)
  LEFT JOIN moments e ON e.session = r.session AND e.what = 'end' AND e.epoch = r.epoch + 1
), log_end AS (SELECT max(ts_ms) AS ts_ms FROM records)
SELECT s.session, s.ts_ms AS at_ms, s.stream, s.event_id, s.rpc_id, s.attached, s.after_close, s.closed_ts, s.close_reason,
  s.how, s.end_ts, (SELECT ts_ms FROM log_end) AS log_end_ms, :stranding_window_ms AS window_ms,
  -- the revision the message names and the advice fits: the response's own version, else its session's
  coalesce(v.protocol_version, (SELECT x.protocol_version FROM session_versions x WHERE x.session = s.session)) AS version,
  json_array(s.id,
    CASE WHEN s.how = 'no-position' THEN s.opened_id END,
    CASE WHEN s.after_close OR s.how = 'no-position' THEN s.closed_id END,
    CASE WHEN s.how = 'session-ended' THEN s.end_id END) AS evidence
FROM (
  SELECT settled.*,
    CASE
      -- (a stale header is no session: the stale_session_ids view)
      WHEN session IS NULL OR session IN (SELECT session FROM stale_session_ids) THEN 'stateless'
      WHEN NOT held THEN 'no-position'
      WHEN end_id IS NOT NULL THEN 'session-ended'
      WHEN (SELECT ts_ms FROM log_end) < ts_ms + :stranding_window_ms THEN 'pending'
      ELSE 'never-resumed'
    END AS how
  FROM settled WHERE NOT rescued) s
JOIN records v ON v.id = s.id
ORDER BY s.ts_ms, s.id;
