-- How far ahead does the log show another node's clock, from each given takeover's own lines?
-- :asked is a JSON array of upgrade record ids. ahead_ms: the largest gap by which another node logs, after the
-- upgrade, what it follows (the opening of a stream it superseded, the send of its Last-Event-ID or of an event it
-- replayed on the resumed lineage); 0 where none. The opening and the Last-Event-ID count within the clock-skew
-- allowance (beyond it, a Last-Event-ID first sent later was no position yet: phantom-event-id), a replayed event's
-- send at any gap: a server cannot replay what was not yet written, so that send came before, whatever the clocks say. dual-writer reads the same of
-- its takeovers (rules/dual-writer.sql); engine-divergence widens its cross-node margin by it, as dual-writer does.
SELECT a.value AS upgrade_id, max(0,
  COALESCE((SELECT max(s.opened_ts) - u.ts_ms FROM streams s
    WHERE s.session = u.session AND s.superseded_id = u.id AND s.opened_ts > u.ts_ms AND s.opened_ts <= u.ts_ms + :clock_skew_allowance_ms
      AND s.node IS NOT NULL AND s.node IS NOT u.node), 0),
  COALESCE((SELECT max(e.ts_ms) - u.ts_ms FROM events e INDEXED BY events_lookup JOIN records x ON x.id = e.id
    WHERE e.session = u.session AND e.event_id IN (u.last_event_id, u.first_replayed, CAST(json_extract(u.replayed_ids, '$[#-1]') AS TEXT))
      AND e.lane = (SELECT l.lane FROM streams l WHERE l.session = u.session AND l.stream = u.stream)
      AND e.ts_ms > u.ts_ms AND x.node IS NOT NULL AND x.node IS NOT u.node
      AND (e.ts_ms <= u.ts_ms + :clock_skew_allowance_ms OR e.event_id IN (u.first_replayed, CAST(json_extract(u.replayed_ids, '$[#-1]') AS TEXT)))), 0)) AS ahead_ms
FROM json_each(:asked) a JOIN records u ON u.id = a.value
ORDER BY a.key;
