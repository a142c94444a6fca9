-- Which session resumptions (accepted upgrades without Last-Event-ID) replayed past events?
-- A replay shows as replayed > 0, a first_replayed or replayed_ids, or event.replayed records on the new stream;
-- to a proxy, as SSE ids in the attach's response that it saw delivered earlier in the session.
-- Staged (store/queries.ts, queryParts): every SSE id a proxy saw delivered, as a TEMP table indexed both ways
-- it is looked up (the attach's own response line; the same id earlier in the session), and the logged replays.
CREATE TEMP TABLE sightings AS
SELECT h.id, h.ts_ms, h.source_id, h.line, json_extract(h.req_headers, '$."mcp-session-id"') AS session, CAST(j.value AS TEXT) AS event_id
FROM records h, json_each(h.sse_event_ids) j
WHERE h.kind = 'http' AND h.sse_event_ids IS NOT NULL;
CREATE INDEX temp.sightings_line ON sightings (source_id, line);
CREATE INDEX temp.sightings_event ON sightings (session, event_id, ts_ms, id);

-- the logged replays, looked up by the stream they went to: walking the session's records from each attach on
-- was quadratic in a session's length (a client that reattaches all day)
CREATE TEMP TABLE replay_records AS
SELECT id, ts_ms, session, stream, event_id FROM records WHERE kind = 'event.replayed' AND shadowed = 0 AND session IS NOT NULL;
CREATE INDEX temp.replay_records_stream ON replay_records (session, stream, ts_ms, id);

WITH attaches AS (
  SELECT u.id, u.ts_ms, u.session, u.decision, u.new_stream, u.replayed, u.first_replayed, u.replayed_ids, u.origin, u.source_id, u.line
  FROM upgrades u
  WHERE u.decision IN ('attach', 'resume') AND u.last_event_id IS NULL AND u.session IS NOT NULL
    AND u.status BETWEEN 200 AND 299
), logged_replays AS (
  SELECT a.id AS upgrade_id, min(x.id) AS first_id, count(*) AS n, group_concat(x.event_id, ', ' ORDER BY x.ts_ms, x.id) AS event_ids
  FROM attaches a
  JOIN replay_records x ON x.session = a.session AND x.stream = a.new_stream AND (x.ts_ms, x.id) > (a.ts_ms, a.id)
  GROUP BY a.id
), seen_again AS (
  SELECT a.id AS upgrade_id, min(earlier.id) AS first_id, count(DISTINCT now.event_id) AS n,
    (SELECT group_concat(event_id, ', ') FROM (SELECT DISTINCT s.event_id FROM sightings s
       WHERE s.source_id = a.source_id AND s.line = a.line AND EXISTS (
         SELECT 1 FROM sightings e WHERE e.session = a.session AND e.event_id = s.event_id AND (e.ts_ms, e.id) < (s.ts_ms, s.id)))) AS event_ids
  FROM attaches a
  JOIN sightings now ON now.source_id = a.source_id AND now.line = a.line
  JOIN sightings earlier ON earlier.session = a.session AND earlier.event_id = now.event_id AND (earlier.ts_ms, earlier.id) < (now.ts_ms, now.id)
  WHERE a.origin = 'proxy'
  GROUP BY a.id
)
SELECT a.id AS upgrade_id, a.session, a.ts_ms AS at_ms, a.decision, a.new_stream, a.replayed, a.first_replayed,
  COALESCE(json_array_length(a.replayed_ids), 0) AS listed_ids, l.n AS replay_records, l.event_ids AS replay_record_ids,
  g.n AS seen_again, g.event_ids AS seen_again_ids,
  -- the upgrade's own counters prove it; otherwise the first event.replayed line does, or the line a proxy saw the id first
  CASE WHEN a.replayed > 0 OR a.first_replayed IS NOT NULL OR json_array_length(a.replayed_ids) > 0 THEN json_array(a.id)
    WHEN l.n > 0 THEN json_array(a.id, l.first_id) ELSE json_array(g.first_id, a.id) END AS evidence
FROM attaches a LEFT JOIN logged_replays l ON l.upgrade_id = a.id LEFT JOIN seen_again g ON g.upgrade_id = a.id
WHERE a.replayed > 0 OR a.first_replayed IS NOT NULL OR json_array_length(a.replayed_ids) > 0 OR l.n > 0 OR g.n > 0
ORDER BY a.ts_ms, a.id;
