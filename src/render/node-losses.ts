import type { FindingList, NodeLoss, Report } from '../model/finding.js';
import { countFollowing } from '../findings/recount.js';
import { duration, isoTime, plural } from '../model/phrasing.js';
import { printable } from '../model/printable.js';

// The words every human format uses for a node's unlogged loss of sessions (detect/node-losses.ts);
// each format lays them out its own way.

/** Losses shown in full; the rest are counted. */
const LOSSES_SHOWN = 5;

export const LOSSES_TITLE = 'Sessions lost without a log line';
export const LOSSES_INTRO =
  'answered 404 by the node that created them, or by another once that node had fallen silent, their end never logged: a restart, a crash or evictions the log does not show?';

/**
 * "mcp-d answered 404 for 40 sessions it had created and never ended (212 404s), from … to …; it last logged one of them at …, 918 ms before the first 404",
 * or where other nodes answered: "mcp-1 logged nothing after …, and 1 session it had created and never ended got 404 from mcp-1-restarted (2 404s), at …; …"
 */
export function lossHeadline(loss: NodeLoss): string {
  const node = nodeName(loss.node);
  const span = loss.from_ms === loss.until_ms ? `at ${isoTime(loss.from_ms)}` : `from ${isoTime(loss.from_ms)} to ${isoTime(loss.until_ms)}`;
  // With a shared session store the loss is the answering node's, but another node may have created the sessions and
  // logged them last: each fact names its own node.
  const who = loss.last_seen_node === undefined ? 'it' : nodeName(loss.last_seen_node);
  const seen = loss.last_seen_ms === undefined ? '' : `; ${who} last logged one of them at ${isoTime(loss.last_seen_ms)}, ${duration(loss.from_ms - loss.last_seen_ms)} before the first 404`;
  if (loss.silent_after_ms === undefined || loss.answered_by === undefined) {
    const created = loss.created_on === undefined ? 'it had created' : `created on ${listNodes(loss.created_on)}`;
    return `${node} answered 404 for ${plural(loss.sessions, 'session')} ${created} and never ended (${plural(loss.not_found, '404')}), ${span}${seen}`;
  }
  const others = loss.answered_by.filter((n) => n !== loss.node).map((n) => (n === null ? 'a node the log does not name' : printable(n)));
  const named = loss.answered_by.includes(loss.node) ? [...others, `${node} itself`] : others;
  const by = named.length < 2 ? named.join('') : `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}`;
  // Its last line of all may be one of these sessions': then it is said once.
  const seenBefore = loss.last_seen_ms === loss.silent_after_ms ? '' : seen;
  return `${node} logged nothing after ${isoTime(loss.silent_after_ms)}, and ${plural(loss.sessions, 'session')} it had created and never ended got 404 from ${by} (${plural(loss.not_found, '404')}), ${span}${seenBefore}`;
}

/** "mcp-a", "mcp-a and mcp-c", "mcp-a, mcp-b and mcp-c". */
function listNodes(nodes: readonly (string | null)[]): string {
  const named = nodes.map((n) => (n === null ? 'a node the log does not name' : printable(n)));
  return named.length < 2 ? named.join('') : `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}`;
}

function nodeName(node: string | null): string {
  return node === null ? 'the server' : printable(node);
}

/** "67 engine-divergence, 12 404-storm" in catalogue order, or undefined where the report holds none on those sessions. */
export function lossFollowing(findings: FindingList, loss: NodeLoss): string | undefined {
  const counts = Object.entries(countFollowing(findings, loss.lost));
  return counts.length === 0 ? undefined : counts.map(([rule, n]) => `${n} ${rule}`).join(', ');
}

/** The losses a report shows, and how many more there are. */
export function shownLosses(report: Report<FindingList>): { shown: NodeLoss[]; more: number } {
  const all = report.summary.lost_sessions ?? [];
  return { shown: all.slice(0, LOSSES_SHOWN), more: Math.max(0, all.length - LOSSES_SHOWN) };
}

/**
 * The losses as lines for stderr, beside a report whose format has no place for them (json, sarif, junit: their
 * shape is fixed), so that a pipeline's log still tells of a restart: at most LOSSES_SHOWN, the rest counted.
 */
export function lossNotes(report: Report<FindingList>): string[] {
  const { shown, more } = shownLosses(report);
  return [
    ...shown.map((loss) => lossNote(loss)),
    ...(more > 0 ? [`resumescope: ${moreLosses(more, '')}\n`] : []),
  ];
}

/** One loss as a line for stderr; `when` says at what point of a run it is told (watch: "by the end of the run"). */
export function lossNote(loss: NodeLoss, when?: string): string {
  return `resumescope: ${LOSSES_TITLE.toLowerCase()}${when === undefined ? '' : ` (${when})`}: ${lossHeadline(loss)}\n`;
}

/** "… and 3 more losses: `resumescope query lost-sessions` lists every lost session", the command in `quote` (none in plain text). */
export function moreLosses(more: number, quote = '`'): string {
  return `… and ${plural(more, 'more loss', 'more losses')}: ${quote}resumescope query lost-sessions${quote} lists every lost session`;
}

/** The loss a finding follows from: its session is one of the loss's, and the finding came after the node last logged it. */
export function lossBehind(losses: readonly NodeLoss[] | undefined, finding: { session: string | null; at: string }): NodeLoss | undefined {
  if (losses === undefined || finding.session === null) return undefined;
  const at = Date.parse(finding.at);
  return losses.find((l) => l.lost.some((s) => s.session === finding.session && at > s.after_ms));
}
