-- Which attaches (an upgrade without Last-Event-ID on a known session) did the server accept, in log order?
-- pending-not-reemitted reads it: an accepted attach it could not judge (no pending requests seen) is not
-- knowable when only a proxy logged its session, or when the log starts after the session was created.
SELECT id, session, ts_ms FROM upgrades WHERE decision = 'attach' AND status BETWEEN 200 AND 299 AND session IS NOT NULL ORDER BY ts_ms, id
