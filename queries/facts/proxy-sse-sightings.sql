-- Which SSE event ids did a proxy see in each response, for sessions only a proxy logged?
-- It is the only emission order such a log shows.
-- Each sighted session is asked once whether a server logged it: asked per sighting, a session only a proxy
-- logged was read whole for each of its responses.
-- Read by the rules that judge reconnects, through detect/facts/proxy-view.ts and reconnect-facts.ts:
-- event-id-regression, foreign-event-id, phantom-event-id, resume-across-state-change, resume-after-end,
-- silent-fork, silent-reset, silent-truncation.
WITH sighted AS MATERIALIZED (
  SELECT h.id, h.ts_ms, h.source_id, h.line, json_extract(h.req_headers, '$."mcp-session-id"') AS session, h.sse_event_ids
  FROM records h
  WHERE h.kind = 'http' AND h.sse_event_ids IS NOT NULL AND json_extract(h.req_headers, '$."mcp-session-id"') IS NOT NULL
), server_logged AS MATERIALIZED (
  SELECT d.session FROM (SELECT DISTINCT session FROM sighted) d
  WHERE EXISTS (SELECT 1 FROM records s WHERE s.session = d.session AND s.origin = 'server')
)
SELECT h.id, h.ts_ms AS at_ms, h.session, h.sse_event_ids,
  (SELECT u.id FROM records u WHERE u.source_id = h.source_id AND u.line = h.line AND u.kind = 'upgrade') AS upgrade_id
FROM sighted h
WHERE h.session NOT IN (SELECT session FROM server_logged)
ORDER BY h.ts_ms, h.id;
