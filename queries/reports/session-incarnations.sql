-- How many times was one session id (:session) created, and has its latest incarnation ended?
-- Read by the dashboard's session rows (tui/wire/store-model.ts), per session touched since its last refresh.
SELECT count(*) AS n,
  (SELECT ended_ts IS NOT NULL FROM incarnations WHERE session = :session ORDER BY created_ts DESC, created_id DESC LIMIT 1) AS ended
FROM incarnations WHERE session = :session
