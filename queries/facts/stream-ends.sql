-- When did the streams of the given sessions end: closed or fenced, or their session ended?
-- :sessions is a JSON array of session ids. engine-divergence reads it to see whether a writer that
-- a server refused to race (409 while it fences) was proven dead within the fence grace period.
SELECT s.session, s.stream, min(COALESCE(s.closed_ts, s.fenced_ts), COALESCE(s.fenced_ts, s.closed_ts)) AS ended_ts
FROM streams s
WHERE s.session IN (SELECT value FROM json_each(:sessions)) AND (s.closed_ts IS NOT NULL OR s.fenced_ts IS NOT NULL)
UNION ALL
SELECT i.session, NULL, i.ended_ts
FROM incarnations i
WHERE i.session IN (SELECT value FROM json_each(:sessions)) AND i.ended_ts IS NOT NULL
ORDER BY 1, 2, 3;
