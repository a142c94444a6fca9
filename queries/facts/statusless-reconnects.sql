-- Which resumptions and attaches logged no status, so that whether they were accepted is not known?
-- silent-truncation (a resume with Last-Event-ID) and replay-on-attach (an attach, or a resume without one) read
-- it: a rule that judges accepted reconnects cannot judge these, and says so instead of passing them.
SELECT u.id, u.session, u.ts_ms, u.decision, u.last_event_id IS NOT NULL AS names_position FROM upgrades u
WHERE u.status IS NULL AND u.decision IN ('resume', 'attach') AND u.session IS NOT NULL
ORDER BY u.ts_ms, u.id
