-- Which accepted session resumptions (attach or resume without Last-Event-ID) logged no replay counter and no replayed ids?
-- replay-on-attach reads it: whether such a resumption replayed past events is not knowable (its session may be one
-- only a proxy logged).
SELECT u.id, u.session, u.ts_ms FROM upgrades u
WHERE u.decision IN ('attach', 'resume') AND u.last_event_id IS NULL AND u.session IS NOT NULL
  AND u.status BETWEEN 200 AND 299 AND u.replayed IS NULL AND u.first_replayed IS NULL AND u.replayed_ids IS NULL
ORDER BY u.ts_ms, u.id
