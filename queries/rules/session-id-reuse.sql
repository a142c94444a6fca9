-- Which session ids were created more than once (a second session.created for one id string, whatever the incarnations say)?
-- A proxy's inferred creation that the server logged too is shadowed (one request, counted once).
WITH creation AS (
  SELECT c.id, c.session, c.ts_ms, c.node, c.incarnation,
    row_number() OVER (PARTITION BY c.session ORDER BY c.ts_ms, c.id) AS nth,
    lag(c.id) OVER (PARTITION BY c.session ORDER BY c.ts_ms, c.id) AS previous_id
  FROM records c
  WHERE c.kind = 'session.created' AND c.shadowed = 0
)
SELECT c.session, c.ts_ms AS at_ms, c.nth, c.node, c.incarnation,
  p.ts_ms AS previous_ts, p.node AS previous_node, p.incarnation AS previous_incarnation,
  json_array(p.id, c.id) AS evidence
FROM creation c JOIN records p ON p.id = c.previous_id
WHERE c.nth >= 2
ORDER BY c.ts_ms, c.id;
