-- Which server upgrades name a Last-Event-ID their own session had not sent before them, but another session had?
-- The engine replay reads it (replay/engine-replay.ts: the request's foreignSession, so engine-divergence and
-- whatif): the engine sees one session at a time, the analyzer sees them all. Every upgrade the server logged,
-- whatever it decided: the replay asks a correct server's answer to each.
-- The meaning is rules.md's foreign-event-id ("last_event_id … belongs to another session"), and both sides are
-- bounded by the upgrade: the session's own emission after it does not make the id its own when it was presented,
-- except within the clock-skew allowance after it on another node's clock (sent before, by a clock ahead), as the
-- rule takes it (own_later_id).
-- The same question, asked of accepted reconnects only and per incarnation, is the foreign-event-id rule's:
-- facts/reconnect-references.sql (own_id, other_session_id); live mode asks it per batch in
-- src/live/context-needs.ts (unplacedReferences, eventIdOwners). A change to what "foreign" means changes all three.
SELECT u.id FROM records u
WHERE u.kind = 'upgrade' AND u.origin = 'server' AND u.shadowed = 0 AND u.session IS NOT NULL AND u.last_event_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM events e WHERE e.session = u.session AND e.event_id = u.last_event_id AND (e.ts_ms, e.id) < (u.ts_ms, u.id))
  AND NOT EXISTS (
    SELECT 1 FROM events e INDEXED BY events_lookup JOIN records x ON x.id = e.id
    WHERE e.session = u.session AND e.event_id = u.last_event_id AND e.ts_ms >= u.ts_ms AND e.ts_ms <= u.ts_ms + :clock_skew_allowance_ms
      AND (e.ts_ms, e.id) > (u.ts_ms, u.id) AND x.node IS NOT u.node)
  AND EXISTS (SELECT 1 FROM events e WHERE e.event_id = u.last_event_id AND e.session <> u.session AND (e.ts_ms, e.id) < (u.ts_ms, u.id))
