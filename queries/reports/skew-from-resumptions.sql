-- Which nodes take a resumption before another node logged sending the event ids it names, and by how much at most?
-- Read by the report's summary (detect/summary.ts estimateSkew, with reports/skew-from-sends): the client held the event
-- its Last-Event-ID names, and the events it names replayed (first_replayed, replayed_ids) had been sent, so another
-- node sent each before the node that took the resumption logged it. Only the resumed stream's send of an id counts
-- (per-stream counters send it again on other streams). The Last-Event-ID's only within the clock-skew allowance after,
-- as phantom-event-id reads it (a later send is no proof: the id may have been no position yet); a replayed event's at
-- any gap, as an event.replayed line's (a server cannot replay what was not yet written).
WITH named AS (
  -- one read of the upgrades, each naming up to two ids: its Last-Event-ID, and of the ids replayed the last
  -- (sent last, it shows the largest gap; each id of every list cost 0.3 s at 1M lines), else the first
  SELECT u.session, u.stream, u.node, u.ts_ms, w.k, CASE w.k WHEN 0 THEN u.last_event_id
      ELSE CAST(COALESCE(json_extract(u.replayed_ids, '$[#-1]'), u.first_replayed) AS TEXT) END AS event_id
  FROM records u CROSS JOIN (SELECT 0 AS k UNION ALL SELECT 1) w
  WHERE u.kind = 'upgrade' AND u.shadowed = 0 AND u.stream IS NOT NULL AND u.node IS NOT NULL)
SELECT n.node AS node, max(e.ts_ms - n.ts_ms) AS skew
FROM named n
CROSS JOIN events e ON e.session = n.session AND e.event_id = n.event_id AND e.stream = n.stream
  AND e.ts_ms > n.ts_ms AND (n.k = 1 OR e.ts_ms <= n.ts_ms + :clock_skew_allowance_ms)
JOIN records s ON s.id = e.id
WHERE s.node IS NOT NULL AND s.node <> n.node
GROUP BY n.node
