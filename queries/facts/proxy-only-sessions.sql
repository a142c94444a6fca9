-- Which sessions did only a proxy log? (Rules that need server state are not knowable for them.)
-- Server state: retention, counters, emissions, state changes, evictions.
-- (Sessions with a server record are ruled out first, each by its first such record: counting every
-- record of every session would read the whole log for the few sessions only a proxy saw.)
-- Read by the rules that judge reconnects, through detect/facts/proxy-view.ts and reconnect-facts.ts:
-- event-id-regression, foreign-event-id, phantom-event-id, resume-across-state-change, resume-after-end,
-- silent-fork, silent-reset, silent-truncation.
WITH proxy_only AS MATERIALIZED (
  SELECT c.session FROM (SELECT DISTINCT session FROM records WHERE session IS NOT NULL) c
  WHERE NOT EXISTS (SELECT 1 FROM records s WHERE s.session = c.session AND s.origin = 'server' AND s.shadowed = 0 AND s.kind <> 'http')
)
SELECT r.session, count(*) AS records, sum(r.kind = 'upgrade') AS upgrades, min(r.ts_ms) AS first_ms
FROM records r
WHERE r.session IN (SELECT session FROM proxy_only) AND r.shadowed = 0 AND r.kind <> 'http'
  -- (a stale header a stateless-era request presented is no session: nothing of it is missing)
  AND r.session NOT IN (SELECT session FROM stale_session_ids)
GROUP BY r.session HAVING sum(r.origin = 'server') = 0
ORDER BY first_ms, r.session;
