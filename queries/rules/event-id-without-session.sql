-- Which requests carried a Last-Event-ID but no Mcp-Session-Id and were still accepted (2xx) as a resume or attach?
-- version: the request's own (it has no session to inherit one from); the message and the advice follow it.
SELECT u.id AS upgrade_id, NULL AS session, u.ts_ms AS at_ms, u.last_event_id, u.decision, u.status, u.new_stream,
  u.origin, u.node, u.protocol_version AS version, json_array(u.id) AS evidence
FROM upgrades u
WHERE u.session IS NULL AND u.last_event_id IS NOT NULL AND u.status BETWEEN 200 AND 299
  AND u.decision IN ('resume', 'attach')
ORDER BY u.ts_ms, u.id;
