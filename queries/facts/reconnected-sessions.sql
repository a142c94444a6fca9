-- Which sessions reconnected (an upgrade other than a fresh stream)?
-- orphaned-request reads it: where only a proxy logged such a session, the streams its server requests went on are hidden.
SELECT DISTINCT session FROM upgrades WHERE session IS NOT NULL AND decision <> 'fresh'
