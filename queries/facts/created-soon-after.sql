-- Which session.created of each given session did another clock log within the clock-skew allowance after a time?
-- :asked is a JSON array of [session, after_ms, node] (node: the clock that logged the time; null for a proxy's).
-- engine-divergence reads it: a resumption the log holds nothing before, whose session another node logs created
-- just after, was made to a session created before it by a node whose clock runs ahead.
SELECT a.value ->> 0 AS session,
  (SELECT c.ts_ms FROM records c
   WHERE c.session = a.value ->> 0 AND c.ts_ms >= a.value ->> 1 AND c.ts_ms <= (a.value ->> 1) + :clock_skew_allowance_ms
     AND c.kind = 'session.created' AND c.shadowed = 0 AND c.node IS NOT a.value ->> 2
   ORDER BY c.ts_ms, c.id LIMIT 1) AS created_ts,
  (SELECT c.node FROM records c
   WHERE c.session = a.value ->> 0 AND c.ts_ms >= a.value ->> 1 AND c.ts_ms <= (a.value ->> 1) + :clock_skew_allowance_ms
     AND c.kind = 'session.created' AND c.shadowed = 0 AND c.node IS NOT a.value ->> 2
   ORDER BY c.ts_ms, c.id LIMIT 1) AS created_node
FROM json_each(:asked) a;
