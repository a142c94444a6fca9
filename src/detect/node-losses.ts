import type { NodeLoss } from '../model/finding.js';
import type { Db } from '../store/db.js';
import { evidenceInLogOrder, resolveEvidence } from './evidence.js';
import { queryRows } from './query-rows.js';
import type { DetectOptions } from './types.js';

// A node that restarts, crashes or evicts sessions without a log line loses every session it held, and
// the log shows it only as 404s, one session at a time: each its own engine-divergence ("as the log shows
// the session live"), its 404 storm, its orphaned requests; or, where the node came back under another
// name (host/pid) or its clients went to another node, no finding at all. Set side by side per node, the
// 404s for sessions the node created and never ended (answered by it, or by another node once it had
// fallen silent) are one event an on-call engineer can look for. They are read from
// queries/reports/lost-sessions.sql (`resumescope query lost-sessions` lists them) and grouped here.

/**
 * A session's first 404 this long after the previous lost session's on the same node begins another loss.
 * Clients find the loss when they next call or reconnect: seconds apart under load, minutes for idle ones.
 */
export const LOSS_GAP_MS = 60_000;

interface LostSessionRow {
  node: string | null;
  session: string;
  answered_by: string | null;
  not_found: number;
  last_seen_id: number | null;
  last_seen_ms: number | null;
  first_404_id: number;
  first_404_ms: number;
  /** Where another node answered: the losing node's last record of all. */
  node_last_id: number | null;
  node_last_ms: number | null;
  created_on: string | null;
  last_seen_node: string | null;
}

/** The sessions lost per node, grouped where their first 404s follow each other within LOSS_GAP_MS, in time order. */
export function nodeLosses(db: Db, opts: DetectOptions): NodeLoss[] {
  const groups = groupLosses(queryRows<LostSessionRow>(db, 'reports/lost-sessions', opts));
  if (groups.length === 0) return [];
  // Two lines a loss: the latest record of any of its sessions before the first 404, and that 404; where
  // another node answered, a third between them: the last line the node logged at all.
  const cited = groups.map((rows) => {
    const seen = lastSeenBefore(rows, rows[0]!.first_404_ms);
    const silent = rows.find((r) => r.node_last_id !== null);
    const ids = [seen?.last_seen_id, silent?.node_last_id, rows[0]!.first_404_id].filter((id): id is number => id != null);
    return { rows, seen, silent, ids: [...new Set(ids)] };
  });
  const refs = resolveEvidence(db, cited.flatMap((c) => c.ids));
  return cited.map(({ rows, seen, silent, ids }) => ({
    node: rows[0]!.node,
    sessions: rows.length,
    not_found: rows.reduce((n, r) => n + r.not_found, 0),
    from_ms: rows[0]!.first_404_ms,
    until_ms: rows[rows.length - 1]!.first_404_ms,
    ...(seen !== undefined && { last_seen_ms: seen.last_seen_ms! }),
    // charged to the node that answered (a shared store), a loss says which node created its sessions and last logged them
    ...(rows.some((r) => r.created_on !== r.node) && { created_on: [...new Set(rows.map((r) => r.created_on))] }),
    ...(seen !== undefined && seen.last_seen_node !== rows[0]!.node && { last_seen_node: seen.last_seen_node }),
    ...(silent !== undefined && { silent_after_ms: silent.node_last_ms!, answered_by: answeredBy(rows) }),
    evidence: evidenceInLogOrder(ids, refs),
    lost: rows.map((r) => ({ session: r.session, after_ms: r.last_seen_ms ?? r.first_404_ms })),
  }));
}

/** The nodes that answered a loss's first 404s, in the order they first did. */
function answeredBy(rows: readonly LostSessionRow[]): (string | null)[] {
  return [...new Set(rows.map((r) => r.answered_by))];
}

/**
 * Of a loss's sessions, the one the node logged last before the first 404: one event that lost them all came
 * after it. (Sessions it logged after the first 404 say it was no single instant; they do not move the bound.)
 */
function lastSeenBefore(rows: readonly LostSessionRow[], firstNotFoundMs: number): LostSessionRow | undefined {
  let latest: LostSessionRow | undefined;
  for (const r of rows) {
    if (r.last_seen_ms === null || r.last_seen_id === null || r.last_seen_ms > firstNotFoundMs) continue;
    if (latest === undefined || r.last_seen_ms > latest.last_seen_ms! || (r.last_seen_ms === latest.last_seen_ms && r.last_seen_id > latest.last_seen_id!)) latest = r;
  }
  return latest;
}

/**
 * Per node, the rows cut where a first 404 comes LOSS_GAP_MS or more after the one before; the groups by their first 404.
 * Rows that other nodes answered after the node fell silent are never cut apart: the node logged nothing more, so
 * however long its idle clients took to come back, one event lost them all.
 */
export function groupLosses<R extends { node: string | null; first_404_ms: number; node_last_ms?: number | null }>(rows: readonly R[]): R[][] {
  const byNode = new Map<string | null, R[]>();
  for (const r of rows) {
    const list = byNode.get(r.node);
    if (list === undefined) byNode.set(r.node, [r]);
    else list.push(r);
  }
  const groups: R[][] = [];
  for (const list of byNode.values()) {
    list.sort((a, b) => a.first_404_ms - b.first_404_ms);
    let group: R[] = [];
    for (const r of list) {
      const before = group[group.length - 1];
      const afterSilence = before?.node_last_ms != null && r.node_last_ms != null;
      if (before !== undefined && !afterSilence && r.first_404_ms - before.first_404_ms >= LOSS_GAP_MS) {
        groups.push(group);
        group = [];
      }
      group.push(r);
    }
    if (group.length > 0) groups.push(group);
  }
  return groups.sort((a, b) => a[0]!.first_404_ms - b[0]!.first_404_ms);
}
