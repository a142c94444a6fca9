-- What else tells of a Last-Event-ID no emission placed, in a session a server logged? phantom-event-id reads it.
-- :asked is a JSON array of [upgrade id, session, event id, the session.created of its incarnation or null].
-- sighting_id: a proxy line of the session (its own streams: the Mcp-Session-Id it presented) whose SSE ids show
--   the id go by before the reconnect (or up to the clock-skew allowance after, where a server logged the reconnect
--   and the proxy's clock is another). A response to a request presenting that same id is left out: the id in the
--   reply to a resumption from it is a replay that went backwards, no proof it was sent before.
-- created_by: the origin of the incarnation's session.created ('proxy' where only a proxy's line shows it).
-- first_emission_ts, first_emission_id: the session's first event.sent or request.sent in that incarnation, asked
--   only where the creation is a proxy's (a log that covers a session from its creation only through the proxy shows
--   what the server sent only where the server logs it).
-- Staged: the sightings of the asked sessions are set apart once, from those sessions' records (not every access
-- line of the log), and looked up per reconnect, rather than each session's lines read again per reconnect.
CREATE TEMP TABLE unplaced_asked AS
SELECT a.key AS k, a.value ->> 0 AS up_id, a.value ->> 1 AS session, a.value ->> 2 AS event_id, a.value ->> 3 AS inc_id
FROM json_each(:asked) a;

CREATE TEMP TABLE unplaced_sightings AS
SELECT h.id, h.ts_ms, h.session, CAST(e.value AS TEXT) AS event_id,
  (SELECT CAST(u.last_event_id AS TEXT) FROM records u
   WHERE u.source_id = h.source_id AND u.line = h.line AND u.kind = 'upgrade') AS presented
FROM (SELECT h.id, h.ts_ms, h.session, h.source_id, h.line, h.sse_event_ids
      FROM (SELECT DISTINCT session FROM unplaced_asked) q CROSS JOIN records h INDEXED BY records_session
      WHERE h.session = q.session AND h.kind = 'http' AND h.sse_event_ids IS NOT NULL) h,
  json_each(h.sse_event_ids) e;
CREATE INDEX temp.unplaced_sightings_id ON unplaced_sightings (session, event_id, ts_ms);

CREATE TEMP TABLE unplaced_incarnations AS
SELECT c.id AS inc_id, c.origin AS created_by,
  CASE WHEN c.origin = 'proxy' THEN (
    SELECT e.id FROM events e WHERE e.session = c.session AND (e.ts_ms, e.id) > (c.ts_ms, c.id)
    ORDER BY e.ts_ms, e.id LIMIT 1) END AS first_emission_id
FROM records c WHERE c.id IN (SELECT inc_id FROM unplaced_asked WHERE inc_id IS NOT NULL);
CREATE INDEX temp.unplaced_incarnations_id ON unplaced_incarnations (inc_id);

SELECT a.up_id,
  (SELECT s.id FROM unplaced_sightings s
   WHERE s.session = a.session AND s.event_id = a.event_id
     AND s.ts_ms <= u.ts_ms + CASE WHEN u.origin = 'proxy' THEN 0 ELSE :clock_skew_allowance_ms END
     AND s.presented IS NOT a.event_id
   ORDER BY s.ts_ms, s.id LIMIT 1) AS sighting_id,
  i.created_by, f.ts_ms AS first_emission_ts, i.first_emission_id
FROM unplaced_asked a JOIN records u ON u.id = a.up_id
LEFT JOIN unplaced_incarnations i ON i.inc_id = a.inc_id
LEFT JOIN events f ON f.id = i.first_emission_id
ORDER BY a.k;
