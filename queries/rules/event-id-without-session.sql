-- Which requests carried a Last-Event-ID but no Mcp-Session-Id and were still accepted (2xx) as a resume or attach?
-- version: the request's own (it has no session to inherit one from); the message and the advice follow it.
-- replayed_nothing: the upgrade counted no replay and named no replayed event, so the cursor was resolved against
-- nothing; a counter that is absent (a proxy's line) is unknown, not zero.
SELECT u.id AS upgrade_id, NULL AS session, u.ts_ms AS at_ms, u.last_event_id, u.decision, u.status, u.new_stream,
  u.origin, u.node, u.protocol_version AS version,
  u.replayed = 0 AND u.first_replayed IS NULL AND coalesce(json_array_length(u.replayed_ids), 0) = 0 AS replayed_nothing,
  json_array(u.id) AS evidence
FROM upgrades u
WHERE u.session IS NULL AND u.last_event_id IS NOT NULL AND u.status BETWEEN 200 AND 299
  AND u.decision IN ('resume', 'attach')
ORDER BY u.ts_ms, u.id;
