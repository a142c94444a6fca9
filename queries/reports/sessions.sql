-- Every session in the log: creations, streams, upgrades by decision, and how it ended.
SELECT r.session,
  (SELECT count(*) FROM incarnations i WHERE i.session = r.session) AS created,
  (SELECT count(*) FROM streams s WHERE s.session = r.session) AS streams,
  sum(r.kind = 'upgrade' AND r.decision = 'resume') AS resumes,
  sum(r.kind = 'upgrade' AND r.decision = 'attach') AS attaches,
  sum(r.kind = 'upgrade' AND r.decision = 'reject') AS rejects,
  sum(r.kind = 'event.sent') AS events,
  (SELECT ended_how FROM incarnations i WHERE i.session = r.session ORDER BY created_ts DESC LIMIT 1) AS ended,
  group_concat(DISTINCT r.node) AS nodes
FROM records r WHERE r.session IS NOT NULL AND r.shadowed = 0 AND r.kind <> 'http'
GROUP BY r.session ORDER BY min(r.ts_ms);
