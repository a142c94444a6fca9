-- Which sessions had an upgrade refused with 409 (a stream still registered)?
-- stale-writer-blocks-reconnect reads it: a proxy sees the 409s but not which stream the server still holds.
SELECT DISTINCT session FROM upgrades WHERE session IS NOT NULL AND status = 409
