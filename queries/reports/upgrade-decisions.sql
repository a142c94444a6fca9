-- Every reconnect decision: the triple (session, last_event_id, decision) with status and both counters.
SELECT datetime(u.ts_ms / 1000, 'unixepoch') || '.' || printf('%03d', u.ts_ms % 1000) AS at,
  u.session, u.last_event_id, u.decision, u.status, u.replayed, u.reemitted, u.cancelled, u.reason, u.origin,
  s.name || ':' || u.line AS source
FROM upgrades u JOIN sources s ON s.id = u.source_id ORDER BY u.ts_ms, u.id;
