-- Which sessions did only a proxy log (no server record for them)? For these, rules that need server state (retention, counters, emissions, state changes, evictions) are not knowable.
SELECT r.session, count(*) AS records, sum(r.kind = 'upgrade') AS upgrades, min(r.ts_ms) AS first_ms
FROM records r
WHERE r.session IS NOT NULL AND r.shadowed = 0 AND r.kind <> 'http'
GROUP BY r.session HAVING sum(r.origin = 'server') = 0
ORDER BY first_ms, r.session;
