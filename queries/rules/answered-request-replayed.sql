-- Which accepted resumptions had, in their replay window, a server request that was already answered?
-- The window: events of the resumed lineage after Last-Event-ID, emitted before the upgrade. Answered: a 2xx
-- request.answered before the upgrade (a 404 answer was not taken). Evidence: the Last-Event-ID event, the
-- request's event, its answer, the upgrade. anchor_stream: the stream that sent the Last-Event-ID event, for the
-- message's "from event E on <stream>" (new_stream is the one the resumption opened).
-- Staged (store/queries.ts, queryParts); each lookup costs what it finds, not the session's length: a long
-- session sends an id on many streams (a server counting ids per stream) and lanes thousands of events long.
CREATE TEMP TABLE resumes AS
SELECT u.id, u.ts_ms, u.session, u.last_event_id, u.stream, u.new_stream FROM upgrades u
WHERE u.decision = 'resume' AND u.status BETWEEN 200 AND 299 AND u.session IS NOT NULL AND u.last_event_id IS NOT NULL;

-- The emissions of each Last-Event-ID on a stream a resumption named with it, each id's emissions read once:
-- looked up among the id's emissions per resumption, a session id minted again and again (each incarnation
-- sending the same ids, on streams of its own) was stepped over each time.
CREATE INDEX temp.resumes_named ON resumes (session, last_event_id, stream);
CREATE TEMP TABLE on_named_stream AS
SELECT e.id, e.session, e.stream, e.event_id, e.ts_ms
FROM (SELECT DISTINCT session, last_event_id FROM resumes) w
JOIN events e ON e.session = w.session AND e.event_id = w.last_event_id
WHERE EXISTS (SELECT 1 FROM resumes r WHERE r.session = e.session AND r.last_event_id = e.event_id AND r.stream = e.stream);
CREATE INDEX temp.on_named_stream_at ON on_named_stream (session, stream, event_id, ts_ms);

-- where Last-Event-ID was emitted in the presented session before the upgrade: the latest on the named
-- stream if it was sent there, else the latest anywhere in the session
CREATE TEMP TABLE anchored AS
SELECT r.*, e.id AS anchor_id, e.stream AS anchor_stream, e.lane, e.lane_pos
FROM resumes r
JOIN events e ON e.id = COALESCE(
  (SELECT e.id FROM on_named_stream e
    WHERE e.session = r.session AND e.stream = r.stream AND e.event_id = r.last_event_id AND (e.ts_ms, e.id) < (r.ts_ms, r.id)
    ORDER BY e.ts_ms DESC, e.id DESC LIMIT 1),
  (SELECT e.id FROM events e
    WHERE e.session = r.session AND e.event_id = r.last_event_id AND (e.ts_ms, e.id) < (r.ts_ms, r.id)
    ORDER BY e.ts_ms DESC, e.id DESC LIMIT 1));

-- lane_pos follows log order (derive numbers a lane's events so), so the window ends at the lane's last event
-- logged before the upgrade: found by galloping from the anchor, then halving (lo: a position logged before
-- the upgrade; hi: none after it is). Walking from the anchor cost the window, the lane so far for a client
-- whose cursor never moves. (facts/reconnect-references.sql searches its own anchors the same way: a query file
-- is read alone.)
CREATE TEMP TABLE windows AS
WITH RECURSIVE probe(id, session, lane, ts_ms, lo, step, hi) AS (
  SELECT a.id, a.session, a.lane, a.ts_ms, a.lane_pos, 1, NULL FROM anchored a
  UNION ALL
  SELECT p.id, p.session, p.lane, p.ts_ms,
    CASE WHEN e.id IS NOT NULL AND (e.ts_ms, e.id) < (p.ts_ms, p.id) THEN e.lane_pos ELSE p.lo END,
    p.step * 2,
    CASE WHEN e.id IS NOT NULL AND (e.ts_ms, e.id) < (p.ts_ms, p.id) THEN p.hi
      ELSE CASE WHEN p.hi IS NULL THEN p.lo + p.step ELSE (p.lo + p.hi + 1) / 2 END - 1 END
  FROM probe p
  LEFT JOIN events e ON e.session = p.session AND e.lane = p.lane
    AND e.lane_pos = CASE WHEN p.hi IS NULL THEN p.lo + p.step ELSE (p.lo + p.hi + 1) / 2 END
  WHERE p.hi IS NULL OR p.lo < p.hi
), heads AS MATERIALIZED (
  SELECT id, lo AS head_pos FROM probe WHERE hi IS NOT NULL AND lo >= hi
)
SELECT a.*, h.head_pos FROM anchored a JOIN heads h ON h.id = a.id;

-- the requests among the lanes' events: a window is searched for them alone
CREATE TEMP TABLE lane_requests AS
SELECT id, session, lane, lane_pos, ts_ms, event_id, request_id, method FROM events WHERE request_id IS NOT NULL;
CREATE INDEX temp.lane_requests_at ON lane_requests (session, lane, lane_pos);

-- the 2xx answers, looked up by request id rather than by walking the session's records between request and upgrade
CREATE TEMP TABLE answers AS
SELECT id, session, request_id, ts_ms FROM records
WHERE kind = 'request.answered' AND shadowed = 0 AND status BETWEEN 200 AND 299 AND session IS NOT NULL AND request_id IS NOT NULL;
CREATE INDEX temp.answers_request ON answers (session, request_id, ts_ms);

WITH replayed_requests AS (
  SELECT a.id AS upgrade_id, w.id AS event_row, w.ts_ms AS event_ms, w.event_id, w.request_id, w.method,
    (SELECT min(x.id) FROM answers x
     WHERE x.session = w.session AND x.request_id = w.request_id
       AND (x.ts_ms, x.id) > (w.ts_ms, w.id) AND (x.ts_ms, x.id) < (a.ts_ms, a.id)) AS answer_id
  FROM windows a
  CROSS JOIN lane_requests w ON w.session = a.session AND w.lane = a.lane AND w.lane_pos > a.lane_pos AND w.lane_pos <= a.head_pos
), answered AS (
  SELECT p.*, x.ts_ms AS answered_ms, row_number() OVER (PARTITION BY p.upgrade_id ORDER BY p.event_ms, p.event_row) AS k
  FROM replayed_requests p JOIN records x ON x.id = p.answer_id
), per_upgrade AS (
  -- an aggregate per upgrade, not a window over it: a window's whole-partition list is copied into every row
  SELECT upgrade_id, count(*) AS n, group_concat(request_id || ' (event ' || event_id || ')', ', ' ORDER BY event_ms, event_row) AS all_requests
  FROM answered GROUP BY upgrade_id
)
SELECT r.id AS upgrade_id, r.session, r.ts_ms AS at_ms, r.last_event_id, r.anchor_stream, r.new_stream,
  a.request_id, a.method, a.event_id, a.answered_ms, g.n AS answered_in_window, g.all_requests,
  json_array(r.anchor_id, a.event_row, a.answer_id, r.id) AS evidence
FROM answered a
JOIN per_upgrade g ON g.upgrade_id = a.upgrade_id
JOIN windows r ON r.id = a.upgrade_id
WHERE a.k = 1
ORDER BY r.ts_ms, r.id;
