-- Which node wrote each given stream, and when did that node log its last line?
-- :asked is a JSON array of [session, stream]. engine-divergence reads it: a resumption a server accepted over a
-- live writer on another node that logged nothing after, before the takeover, may follow that node's death (its
-- writer died with it, a close no log shows), which dual-writer says of the same takeover.
SELECT a.value ->> 0 AS session, a.value ->> 1 AS stream, s.node,
  (SELECT max(n.last_ms) FROM node_records n WHERE n.node = s.node) AS node_last_ms
FROM json_each(:asked) a
LEFT JOIN streams s ON s.session = a.value ->> 0 AND s.stream = a.value ->> 1
ORDER BY a.key;
