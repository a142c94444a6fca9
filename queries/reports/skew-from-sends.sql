-- Which nodes log an event replayed, or a request answered, before another node logged sending it, and by how much at most?
-- Read by the report's summary (detect/summary.ts estimateSkew: each node's skew_ms, with reports/skew-from-resumptions):
-- causality shows a clock behind, and the largest inversion against a node is a lower bound on how far behind it runs.
-- The latest send of each id per node, grouped once: joining every answer with every record of its session walked
-- whole sessions (4.8 s at 1M lines); the largest inversion is the same. CROSS JOIN keeps the replays and answers
-- outside, so that each probes the grouped sends (an automatic index), where the planner otherwise walked every
-- session's records once per send. The sends are most of the log: one scan reads them in half the time the
-- records_kind index does (3M lines: 8.9 s, 15.7 s). Only the sends some replay or answer names are grouped (an IN
-- list, probed by a Bloom filter): the others join nothing, and grouping every send was most of the time (1M lines:
-- 1.8 s, now 1.35 s).
WITH asked AS MATERIALIZED (
  SELECT DISTINCT session, CASE kind WHEN 'event.replayed' THEN 'event.sent' ELSE 'request.sent' END AS kind,
    CASE kind WHEN 'event.replayed' THEN event_id ELSE request_id END AS id
  FROM records WHERE kind IN ('event.replayed', 'request.answered') AND node IS NOT NULL AND session IS NOT NULL),
sent AS MATERIALIZED (
  SELECT session, kind, id, node, max(ts_ms) AS ts_ms FROM (
    SELECT session, kind, CASE kind WHEN 'event.sent' THEN event_id ELSE request_id END AS id, node, ts_ms FROM records NOT INDEXED
    WHERE kind IN ('event.sent', 'request.sent') AND node IS NOT NULL AND session IS NOT NULL)
  WHERE id IS NOT NULL AND (session, kind, id) IN (SELECT session, kind, id FROM asked)
  GROUP BY session, kind, id, node)
SELECT later.node AS node, max(sent.ts_ms - later.ts_ms) AS skew
FROM records later
CROSS JOIN sent ON sent.session = later.session
  AND sent.kind = CASE later.kind WHEN 'event.replayed' THEN 'event.sent' ELSE 'request.sent' END
  AND sent.id = CASE later.kind WHEN 'event.replayed' THEN later.event_id ELSE later.request_id END
  AND sent.node <> later.node
WHERE later.node IS NOT NULL AND later.kind IN ('event.replayed', 'request.answered') AND sent.ts_ms > later.ts_ms
GROUP BY later.node
