-- Which nodes wrote the log, and when did each log its last line: its records, the sessions it created, its last server line (file:line) and how long before any node's last server line it fell quiet.
-- A node that fell quiet long before the others, while its sessions' clients went on, crashed or restarted under another
-- name (lost-sessions lists what it lost); one whose log merely ends early looks the same. Read from node_records (counted
-- as records are stored, summed in the node_totals view) and incarnations: a few rows per node, however long the log.
WITH created AS (
  SELECT node, count(*) AS sessions_created FROM incarnations GROUP BY node
)
SELECT p.node, p.records, coalesce(c.sessions_created, 0) AS sessions_created,
  strftime('%Y-%m-%dT%H:%M:%fZ', p.last_ms / 1000.0, 'unixepoch') AS last_line,
  s.name || ':' || r.line AS last_line_source,
  (SELECT max(last_ms) FROM node_totals) - p.last_ms AS quiet_before_end_ms
FROM node_totals p
LEFT JOIN records r ON r.id = p.last_id
LEFT JOIN sources s ON s.id = r.source_id
LEFT JOIN created c ON c.node IS p.node
WHERE p.records > 0
-- the node that fell quiet first comes first; a proxy, with no server line, last
ORDER BY p.last_ms IS NULL, p.last_ms, p.node;
