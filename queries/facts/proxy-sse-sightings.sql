-- Which SSE event ids did a proxy see in each response, for sessions only a proxy logged?
-- It is the only emission order such a log shows.
SELECT h.id, h.ts_ms AS at_ms, json_extract(h.req_headers, '$."mcp-session-id"') AS session, h.sse_event_ids,
  (SELECT u.id FROM records u WHERE u.source_id = h.source_id AND u.line = h.line AND u.kind = 'upgrade') AS upgrade_id
FROM records h
WHERE h.kind = 'http' AND h.sse_event_ids IS NOT NULL AND json_extract(h.req_headers, '$."mcp-session-id"') IS NOT NULL
  AND NOT EXISTS (
    SELECT 1 FROM records s WHERE s.session = json_extract(h.req_headers, '$."mcp-session-id"') AND s.origin = 'server')
ORDER BY h.ts_ms, h.id;
