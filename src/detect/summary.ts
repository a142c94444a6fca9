import type { NodeSummary, Summary } from '../model/finding.js';
import type { Db } from '../store/db.js';
import { lineTotals } from '../store/source-sink.js';
import { nodeLosses } from './node-losses.js';
import { CLOCK_SKEW_ALLOWANCE_MS } from '../model/thresholds.js';
import { DEFAULT_DETECT_OPTIONS, type DetectOptions } from './types.js';

/** What the input held: the report's summary but the findings' counts. */
export type InputSummary = Omit<Summary, 'by_rule'>;

export function summarize(db: Db, opts: DetectOptions = DEFAULT_DETECT_OPTIONS): InputSummary {
  const totals = lineTotals(db);
  // The input's records and each node's share, counted as they were stored (store/node-tally.ts). Records are
  // what the input holds (log-format.md: a line whose kind is a known kind; an OTLP export holds many): what the
  // analyzer infers from a proxy's `http` record (origin proxy, another kind) is its reading, not input.
  let records = 0;
  const nodes: Record<string, NodeSummary> = {};
  for (const row of db.prepare('SELECT node, records AS n FROM node_totals WHERE records > 0 ORDER BY node').all() as { node: string | null; n: number }[]) {
    records += row.n;
    if (row.node !== null) nodes[row.node] = { records: row.n };
  }
  for (const [node, skew] of estimateSkew(db)) if (nodes[node]) nodes[node].skew_ms = skew;
  const versions = protocolVersions(db);
  // Every session is counted under exactly one version ('unknown' included).
  const sessions = Object.values(versions).reduce((a, b) => a + b, 0);
  const lost = nodeLosses(db, opts);
  return {
    records,
    rejected_lines: totals.rejected,
    ignored_lines: totals.ignored,
    ...(totals.repeated > 0 && { repeated_lines: totals.repeated }),
    sessions,
    nodes,
    protocol_versions: versions,
    ...versionsLogged(db),
    ...(lost.length > 0 && { lost_sessions: lost }),
  };
}

/**
 * Whether any record logs a version, counted under a session or not: a stateless request has no session,
 * and a stateless version on a request that presents a stale session id does not name that session's.
 */
function versionsLogged(db: Db): { versions_logged?: true } {
  const any = db.prepare('SELECT 1 FROM records WHERE protocol_version IS NOT NULL LIMIT 1').get();
  return any ? { versions_logged: true } : {};
}

/**
 * A session's protocol version is the one its records carry (the first logged,
 * where a session logs several); the others inherit it. Sessions are counted as
 * in `sessions`: every session id a judged record names, but a stale header a stateless-era request
 * presented and no server answered with (stale_session_ids, store/views.ts). One scan of the table
 * finds them: through the records_session index, each row's shadowed and kind
 * cost a random read of the table (1M production lines: 0.8 s, the scan 0.3 s).
 */
export function protocolVersions(db: Db): Record<string, number> {
  const rows = db
    .prepare(
      `SELECT coalesce(sv.protocol_version, 'unknown') AS v, count(*) AS n
       FROM (SELECT DISTINCT session FROM records NOT INDEXED WHERE session IS NOT NULL AND shadowed = 0 AND kind <> 'http') s
       LEFT JOIN session_versions sv ON sv.session = s.session
       WHERE s.session NOT IN (SELECT session FROM stale_session_ids)
       GROUP BY v ORDER BY v`,
    )
    .all() as { v: string; n: number }[];
  const out: Record<string, number> = {};
  for (const r of rows) out[r.v] = r.n;
  return out;
}

/**
 * Causality shows skew where one node logs an event replayed (or a request
 * answered, or a resumption from it) before another node logged sending it. The estimate for a node is
 * the largest such inversion against it: a lower bound on how far behind its
 * clock runs.
 */
export function estimateSkew(db: Db): Map<string, number> {
  // The latest send of each id per node, grouped once: joining every answer with every record of its
  // session walked whole sessions (4.8 s at 1M lines); the largest inversion is the same. CROSS JOIN
  // keeps the replays and answers outside, so that each probes the grouped sends (an automatic index),
  // where the planner otherwise walked every session's records once per send. The sends are most of
  // the log: one scan reads them in half the time the records_kind index does (3M lines: 8.9 s, 15.7 s).
  // Only the sends some replay or answer names are grouped (an IN list, probed by a Bloom filter): the
  // others join nothing, and grouping every send was most of the time (1M lines: 1.8 s, now 1.35 s).
  const rows = db
    .prepare(
      `WITH asked AS MATERIALIZED (
         SELECT DISTINCT session, CASE kind WHEN 'event.replayed' THEN 'event.sent' ELSE 'request.sent' END AS kind,
           CASE kind WHEN 'event.replayed' THEN event_id ELSE request_id END AS id
         FROM records WHERE kind IN ('event.replayed', 'request.answered') AND node IS NOT NULL AND session IS NOT NULL),
       sent AS MATERIALIZED (
         SELECT session, kind, id, node, max(ts_ms) AS ts_ms FROM (
           SELECT session, kind, CASE kind WHEN 'event.sent' THEN event_id ELSE request_id END AS id, node, ts_ms FROM records NOT INDEXED
           WHERE kind IN ('event.sent', 'request.sent') AND node IS NOT NULL AND session IS NOT NULL)
         WHERE id IS NOT NULL AND (session, kind, id) IN (SELECT session, kind, id FROM asked)
         GROUP BY session, kind, id, node)
       SELECT later.node AS node, max(sent.ts_ms - later.ts_ms) AS skew
       FROM records later
       CROSS JOIN sent ON sent.session = later.session
         AND sent.kind = CASE later.kind WHEN 'event.replayed' THEN 'event.sent' ELSE 'request.sent' END
         AND sent.id = CASE later.kind WHEN 'event.replayed' THEN later.event_id ELSE later.request_id END
         AND sent.node <> later.node
       WHERE later.node IS NOT NULL AND later.kind IN ('event.replayed', 'request.answered') AND sent.ts_ms > later.ts_ms
       GROUP BY later.node`,
    )
    .all() as { node: string; skew: number }[];
  const skew = new Map(rows.map((r) => [r.node, r.skew]));
  for (const r of cursorInversions(db)) skew.set(r.node, Math.max(skew.get(r.node) ?? 0, r.skew));
  return new Map([...skew].map(([node, s]) => [node, -s]));
}

/**
 * The same causality read from a resumption: the client held the event its Last-Event-ID names, and the
 * events it names replayed (`first_replayed`, `replayed_ids`) had been sent, so another node sent each before
 * the node that took the resumption logged it. Only the resumed stream's send of an id counts (per-stream
 * counters send it again on other streams). The Last-Event-ID's only within CLOCK_SKEW_ALLOWANCE_MS after, as
 * phantom-event-id reads it (a later send is no proof: the id may have been no position yet); a replayed
 * event's at any gap, as an `event.replayed` line's (a server cannot replay what was not yet written).
 */
function cursorInversions(db: Db): { node: string; skew: number }[] {
  return db
    .prepare(
      `WITH named AS (
         -- one read of the upgrades, each naming up to two ids: its Last-Event-ID, and of the ids replayed the last
         -- (sent last, it shows the largest gap; each id of every list cost 0.3 s at 1M lines), else the first
         SELECT u.session, u.stream, u.node, u.ts_ms, w.k, CASE w.k WHEN 0 THEN u.last_event_id
             ELSE CAST(COALESCE(json_extract(u.replayed_ids, '$[#-1]'), u.first_replayed) AS TEXT) END AS event_id
         FROM records u CROSS JOIN (SELECT 0 AS k UNION ALL SELECT 1) w
         WHERE u.kind = 'upgrade' AND u.shadowed = 0 AND u.stream IS NOT NULL AND u.node IS NOT NULL)
       SELECT n.node AS node, max(e.ts_ms - n.ts_ms) AS skew
       FROM named n
       CROSS JOIN events e ON e.session = n.session AND e.event_id = n.event_id AND e.stream = n.stream
         AND e.ts_ms > n.ts_ms AND (n.k = 1 OR e.ts_ms <= n.ts_ms + :allowance)
       JOIN records s ON s.id = e.id
       WHERE s.node IS NOT NULL AND s.node <> n.node
       GROUP BY n.node`,
    )
    .all({ allowance: CLOCK_SKEW_ALLOWANCE_MS }) as { node: string; skew: number }[];
}
