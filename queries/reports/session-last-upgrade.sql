-- What did the server last decide on a reconnect of one session (:session): its Last-Event-ID, decision and status?
-- Read by the dashboard's session rows (tui/wire/store-model.ts), per session touched since its last refresh.
SELECT last_event_id, decision, status FROM records
WHERE session = :session AND +kind = 'upgrade' AND shadowed = 0
ORDER BY ts_ms DESC, id DESC LIMIT 1
