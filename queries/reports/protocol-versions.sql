-- How many sessions speak each protocol version ('unknown': none logged)?
-- Read by the report's summary (detect/summary.ts: protocol_versions). A session's version is the one its records carry
-- (the first logged, where a session logs several; the session_versions view). Sessions are counted as in `sessions`:
-- every session id a judged record names, but a stale header a stateless-era request presented and no server answered
-- with (stale_session_ids, store/views.ts). One scan of the table finds them: through the records_session index, each
-- row's shadowed and kind cost a random read of the table (1M production lines: 0.8 s, the scan 0.3 s).
SELECT coalesce(sv.protocol_version, 'unknown') AS v, count(*) AS n
FROM (SELECT DISTINCT session FROM records NOT INDEXED WHERE session IS NOT NULL AND shadowed = 0 AND kind <> 'http') s
LEFT JOIN session_versions sv ON sv.session = s.session
WHERE s.session NOT IN (SELECT session FROM stale_session_ids)
GROUP BY v ORDER BY v
