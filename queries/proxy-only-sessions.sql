-- Which sessions did only a proxy log? (Rules that need server state are not knowable for them.)
-- Server state: retention, counters, emissions, state changes, evictions.
SELECT r.session, count(*) AS records, sum(r.kind = 'upgrade') AS upgrades, min(r.ts_ms) AS first_ms
FROM records r
WHERE r.session IS NOT NULL AND r.shadowed = 0 AND r.kind <> 'http'
GROUP BY r.session HAVING sum(r.origin = 'server') = 0
ORDER BY first_ms, r.session;
