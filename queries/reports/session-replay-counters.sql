-- How many events did the server replay, and how many requests re-emit, over one session's (:session) reconnects?
-- Read by the dashboard's session rows (tui/wire/store-model.ts), per session touched since its last refresh.
SELECT coalesce(sum(replayed), 0) AS replayed, coalesce(sum(reemitted), 0) AS reemitted FROM records
WHERE session = :session AND +kind = 'upgrade' AND shadowed = 0
