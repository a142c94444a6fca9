-- Does any of these replay windows hold an event written to its stream after an accepted upgrade superseded that
-- stream? silent-truncation asks it before it asks write-to-superseded-stream's whole query for its late writes:
-- a window without such an event holds none of them, and most logs have none.
-- :windows is a JSON array of [session, lane, first lane position, last lane position].
SELECT 1 AS found FROM json_each(:windows) w
JOIN events e ON e.session = w.value ->> 0 AND e.lane = w.value ->> 1
  AND e.lane_pos BETWEEN w.value ->> 2 AND w.value ->> 3
JOIN streams s ON s.session = e.session AND s.stream = e.stream
WHERE s.superseded_id IS NOT NULL AND (e.ts_ms, e.id) > (s.superseded_ts, s.superseded_id)
LIMIT 1;
