-- When did each session first send an event id after a given time?
-- :asked is a JSON array of [session, event_id, after_ms]. engine-divergence reads it: an id the engine had not
-- seen when a resumption named it, which its session sent soon after, was sent before it by a node whose clock
-- runs ahead.
-- sent_node: the node that logged that send, to name the clocks.
SELECT q.session, q.event_id, q.after_ms, f.ts_ms AS sent_ts, r.node AS sent_node FROM (
  SELECT a.key, a.value ->> 0 AS session, a.value ->> 1 AS event_id, a.value ->> 2 AS after_ms,
    (SELECT e.id FROM events e INDEXED BY events_lookup
     WHERE e.session = a.value ->> 0 AND e.event_id = a.value ->> 1 AND e.ts_ms > a.value ->> 2
     ORDER BY e.ts_ms, e.id LIMIT 1) AS first_id
  FROM json_each(:asked) a) q
LEFT JOIN events f ON f.id = q.first_id LEFT JOIN records r ON r.id = q.first_id
ORDER BY q.key;
