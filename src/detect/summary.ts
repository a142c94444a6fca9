import type { NodeSummary, Summary } from '../model/finding.js';
import type { Db } from '../store/db.js';
import { lineTotals } from '../store/source-sink.js';
import { nodeLosses } from './node-losses.js';
import { queryRows } from './query-rows.js';
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
  for (const [node, skew] of estimateSkew(db, opts)) if (nodes[node]) nodes[node].skew_ms = skew;
  const versions = protocolVersions(db, opts);
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

/** Sessions per protocol version (queries/reports/protocol-versions.sql). */
function protocolVersions(db: Db, opts: DetectOptions): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of queryRows<{ v: string; n: number }>(db, 'reports/protocol-versions', opts)) out[r.v] = r.n;
  return out;
}

/**
 * How far behind each node's clock runs at least (negative), from causality: the largest inversion against it,
 * where it logs a replay, an answer (queries/reports/skew-from-sends.sql) or a resumption
 * (queries/reports/skew-from-resumptions.sql) before another node logged sending what it names.
 */
function estimateSkew(db: Db, opts: DetectOptions): Map<string, number> {
  const skew = new Map(queryRows<{ node: string; skew: number }>(db, 'reports/skew-from-sends', opts).map((r) => [r.node, r.skew]));
  for (const r of queryRows<{ node: string; skew: number }>(db, 'reports/skew-from-resumptions', opts)) skew.set(r.node, Math.max(skew.get(r.node) ?? 0, r.skew));
  return new Map([...skew].map(([node, s]) => [node, -s]));
}
