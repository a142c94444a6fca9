-- When did each session first send an event id after a given time?
-- :asked is a JSON array of [session, event_id, after_ms]. engine-divergence reads it: an id the engine had not
-- seen when a resumption named it, which its session sent soon after, was sent before it by a node whose clock
-- runs ahead.
SELECT a.value ->> 0 AS session, a.value ->> 1 AS event_id, a.value ->> 2 AS after_ms,
  (SELECT min(e.ts_ms) FROM events e
   WHERE e.session = a.value ->> 0 AND e.event_id = a.value ->> 1 AND e.ts_ms > a.value ->> 2) AS sent_ts
FROM json_each(:asked) a;
