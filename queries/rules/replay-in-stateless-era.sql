-- replay-in-stateless-era: a request at protocol 2026-07-28 or later carried Last-Event-ID and was resumed or replayed.
-- Server upgrades only: a proxy cannot tell a replay from a fresh response stream to a POST that carried the header.
SELECT u.id, u.session, u.ts_ms AS at_ms, u.decision, u.replayed, u.last_event_id,
       coalesce(u.protocol_version, (SELECT p.protocol_version FROM records p
                                     WHERE p.session = u.session AND p.protocol_version IS NOT NULL ORDER BY p.ts_ms, p.id LIMIT 1)) AS version,
       json_array(u.id) AS evidence
FROM upgrades u
WHERE u.origin = 'server' AND u.last_event_id IS NOT NULL
  AND ((u.decision = 'resume' AND (u.status IS NULL OR u.status BETWEEN 200 AND 299)) OR u.replayed > 0)
  AND coalesce(u.protocol_version, (SELECT p.protocol_version FROM records p
                                    WHERE p.session = u.session AND p.protocol_version IS NOT NULL ORDER BY p.ts_ms, p.id LIMIT 1)) >= '2026-07-28'
ORDER BY u.ts_ms, u.id
