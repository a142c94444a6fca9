import type { NotKnowable } from '../../model/finding.js';
import { FindingBatches } from '../finding-batches.js';
import { forEachUpgrade, type UpgradePoint } from '../../replay/engine-replay.js';
import { decisionEvidence, MAX_CITED_WRITERS, unfenceableWriterIds, unfenceableWriters } from '../../replay/decision-evidence.js';
import { CLOCK_SKEW_ALLOWANCE_MS, CROSS_NODE_ORDER_MS } from '../../model/thresholds.js';
import { loggedClass, policyOf, reDecide, type Unresumable } from '../../replay/re-decide.js';
import { servingIncarnation, type EngineDecision } from '../../engine/index.js';
import { divergenceMessage } from '../../replay/decision-wording.js';
import { at, clockBehind, duration, silentWriterNode } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import type { LoggedUpgrade } from '../../replay/stored-record.js';
import { queryRows } from '../query-rows.js';
import type { DetectOptions, RawFinding } from '../types.js';
import { defineRule, type RuleModule } from '../rule.js';
import { revisionNamed } from '../../replay/revision-named.js';

// engine-divergence: replay each session's server records through the
// embedded engine and, at every logged upgrade, compare the class of the
// engine's decision with the server's. The engine knows the state before the
// upgrade only, so it is asked before it observes the server's answer.

const RULE = 'engine-divergence';

const META = {
  id: 'engine-divergence',
  severity: 'info',
  family: 'engine',
  summary: 'The embedded engine decides another class than the server logged.',
  seeds: [],
  explanation: {
    meaning:
      'Given the state reconstructed from the log at that moment, the embedded resumption engine decides another class (resume, attach, fresh, reject) than the server logged; the finding names the rules that explain the difference, or says that none does.',
    whyItBreaks:
      'The engine follows the decision boundary: a session id is an identity across streams, an event id a position within one stream. A different decision shows where the server\'s branching departs from that boundary, even where no other rule fired.',
    shouldHave:
      'Branch on the combination of both headers: resume a retained position of a live session\'s stream, attach without replay when Last-Event-ID is absent, and otherwise reject or reset explicitly. The engine\'s decision and reason show which branch applies.',
    fitted: (message: string) =>
      revisionNamed(message)?.rules.sessions === false
        ? {
            shouldHave:
              'At 2026-07-28 and later branch on neither header: refuse an initialize (400), which that revision does not have, answer GET and DELETE 405, and serve every other request on its own, ignoring Mcp-Session-Id and Last-Event-ID and minting nothing (that revision\'s transport, Backward Compatibility). A client that needs legacy semantics negotiates an earlier revision with initialize, and is then judged by that one.',
          }
        : undefined,
  },
  live: { reads: [], settles: 'at-once' },
} as const;

/**
 * The cross-check under the detect options' retention and thresholds; `unresumable`
 * fixes what a correct server does with an unresumable position (what-if), where the
 * default takes the server's own choice between a 409 and a signalled reset.
 */
export function engineDivergenceWith(unresumable: Unresumable = 'as-logged'): RuleModule<'engine-divergence'> {
  return defineRule({
    ...META,
    detect({ db, opts, handOver }) {
      const policy = policyOf(opts);
      const findings = new FindingBatches(handOver);
      const notKnowable = new Map<string | null, NotKnowable>();
      // One reason a session: the first that made one of its reconnects unjudgeable.
      const unknowable = (session: string | null, reason: string) => {
        if (!notKnowable.has(session)) notKnowable.set(session, { rule: RULE, session, reason });
      };
      const refusedWhileFencing: { finding: RawFinding; streams: string[] }[] = [];
      const acceptedOverElsewhere: { finding: RawFinding; streams: string[] }[] = [];
      const unseenPosition: { finding: RawFinding; eventId: string; node?: string }[] = [];
      const nothingBefore: { point: UpgradePoint; reason: string }[] = [];
      // A divergence from a position the session emitted twice is not judged (repeatedPosition).
      const ambiguity = new Map<RawFinding, string>();
      const stands = (finding: RawFinding) => {
        const reason = ambiguity.get(finding);
        if (reason === undefined) findings.push(finding);
        else unknowable(finding.session, reason);
      };
      forEachUpgrade(db, (p) => {
        const session = p.upgrade.session;
        if (p.unknowable !== undefined && p.state === undefined && p.upgrade.origin === 'server') return void nothingBefore.push({ point: p, reason: p.unknowable });
        if (p.unknowable !== undefined) return unknowable(session, p.unknowable);
        const logged = loggedClass(p.upgrade);
        const decision = reDecide(p, policy, unresumable);
        if (logged === undefined || logged === decision.decision) return;
        const lost = lostSession(p, decision);
        const finding: RawFinding = {
          rule: RULE,
          session,
          atMs: p.upgrade.tsMs,
          message: divergenceMessage(p.upgrade, p.request, decision) + uncitedNote(unfenceableWriters(p, decision)) + (lost?.note ?? ''),
          // The upgrade comes last: explainEngineDivergences finds it there.
          evidenceIds: [...withCreation(decisionEvidence(p, decision, policy), lost?.createdId), p.upgrade.id],
        };
        const ambiguous = repeatedPosition(p, decision);
        if (ambiguous !== undefined) ambiguity.set(finding, ambiguous);
        if (logged === 'reject' && decision.fence.length > 0 && isWriterConflict(p.upgrade)) refusedWhileFencing.push({ finding, streams: decision.fence });
        else if (logged !== 'reject' && onlyCheck(decision, 'prior_writer_unfenceable')) acceptedOverElsewhere.push({ finding, streams: unfenceableWriterIds(p, decision) });
        else if (onlyCheck(decision, 'unknown_event_id') && p.request.lastEventId !== null) unseenPosition.push({ finding, eventId: String(p.request.lastEventId), node: p.upgrade.node });
        else stands(finding);
      }, opts);
      for (const { session, reason } of createdJustAfter(db, opts, nothingBefore)) unknowable(session, reason);
      const ends = streamEnds(db, opts, [...acceptedOverElsewhere, ...refusedWhileFencing]);
      const silent = silentWriterNodes(db, opts, acceptedOverElsewhere);
      const ahead = takeoverSkew(db, opts, acceptedOverElsewhere);
      for (const { finding, streams } of acceptedOverElsewhere) {
        const reason = retiredAcrossNodes(ends, finding, streams, ahead.get(finding) ?? 0);
        if (reason === undefined) stands(withSilentWriters(finding, silent(finding, streams)));
        else unknowable(finding.session, reason);
      }
      for (const { finding, reason } of sentJustAfter(db, opts, unseenPosition)) {
        if (reason === undefined) stands(finding);
        else unknowable(finding.session, reason);
      }
      const { divergent, undecided } = stillDivergent(db, ends, refusedWhileFencing, policy.fenceGraceMs);
      for (const finding of divergent) stands(finding);
      for (const f of undecided) {
        unknowable(f.session, `the log ends within the ${duration(policy.fenceGraceMs)} fence grace period after the reconnect refused at ${at(f.atMs)} while the engine would fence its writer`);
      }
      return { findings: findings.rest(), notKnowable: [...notKnowable.values()] };
    },
  });
}

export default engineDivergenceWith();

/** Said where the evidence cites only the latest of the writers on another node (decision-evidence.ts). */
function uncitedNote(writers: number): string {
  return writers > MAX_CITED_WRITERS ? ` (${writers} live writers on another node; the latest ${MAX_CITED_WRITERS} cited)` : '';
}

/**
 * A Last-Event-ID the session had emitted twice (a fork, which event-id-regression reports) names two
 * positions. The engine keeps an id at its first emission, the rules take the latest, and a server's
 * store holds whichever it wrote last: which one the server resumed from cannot be told, so neither
 * can whether an answer that depends on the position diverges.
 */
function repeatedPosition(p: UpgradePoint, d: EngineDecision): string | undefined {
  const id = p.request.lastEventId;
  if (id === null || p.state === undefined) return undefined;
  // A decision that does not read the position (an ended session, a revision without resumption) stands.
  if (d.reason !== 'stream_resumption' && d.reason !== 'resumption_unavailable') return undefined;
  if (servingIncarnation(p.state, p.request)?.events.isRepeated(String(id)) !== true) return undefined;
  return `the session had emitted Last-Event-ID ${id} more than once (event-id-regression) before the reconnect at ${at(p.upgrade.tsMs)}: which of its emissions a server resumes from cannot be told`;
}

/**
 * A 404 for a session the log shows live on the node that answered: the server lost it, and the
 * log does not say how. Nodes that restart or evict without a log line are the usual cause, and
 * no rule can see a loss the log does not hold; the note says where the session was last known
 * to be, and its creation is cited, so the reader can look for the gap (a per-session fact: live
 * mode judges one session at a time and must word it the same).
 */
function lostSession(p: UpgradePoint, d: EngineDecision): { note: string; createdId: number | undefined } | undefined {
  if (p.upgrade.status !== 404 || p.state === undefined) return undefined;
  if (d.decision === 'reject' && d.reason === 'session_not_found') return undefined;
  const inc = servingIncarnation(p.state, p.request);
  if (inc === undefined || inc.ended !== undefined) return undefined;
  const where = inc.node === undefined ? '' : ` on ${inc.node}`;
  const since = inc.createdTsMs === undefined ? '' : ` from ${at(inc.createdTsMs)}`;
  return {
    note: `, as the log shows the session live${where}${since} and never ended (lost in a restart or an eviction the log does not show?)`,
    createdId: p.createdRecordId(inc),
  };
}

function withCreation(ids: number[], created: number | undefined): number[] {
  return created === undefined || ids.includes(created) ? ids : [...ids, created].sort((a, b) => a - b);
}

function onlyCheck(d: EngineDecision, check: string): boolean {
  return d.checks.length === 1 && d.checks[0] === check;
}

/** Whether a stream of a session ended (closed, fenced, or with its session) between two times, both included. */
type StreamEnds = (session: string | null, stream: string, from: number, until: number) => boolean;

/**
 * The ends of the streams these held-back divergences wait on (queries/facts/stream-ends.sql), in one query,
 * looked up by session and stream: scanning every end per stream asked made many refusals in many sessions
 * their product.
 */
function streamEnds(db: Db, opts: DetectOptions, held: { finding: RawFinding }[]): StreamEnds {
  const bySession = new Map<string | null, { stream: string | null; ended_ts: number }[]>();
  if (held.length > 0) {
    const sessions = [...new Set(held.map((h) => h.finding.session))];
    for (const e of queryRows<{ session: string; stream: string | null; ended_ts: number }>(db, 'facts/stream-ends', opts, { sessions: JSON.stringify(sessions) })) {
      const list = bySession.get(e.session);
      if (list === undefined) bySession.set(e.session, [e]);
      else list.push(e);
    }
  }
  return (session, stream, from, until) =>
    (bySession.get(session) ?? []).some((e) => (e.stream === stream || e.stream === null) && e.ended_ts >= from && e.ended_ts <= until);
}

/**
 * A server that accepted a resumption over live writers on other nodes, each retired on its node within
 * CROSS_NODE_ORDER_MS after: it may have fenced them first (the engine holds that a node can fence only its own
 * writers; a store shared across nodes can fence any), and the nodes' clocks cannot order it, as dual-writer
 * says of the same takeover. The reason why it is not knowable; undefined where a writer stayed up longer.
 */
function retiredAcrossNodes(ends: StreamEnds, f: RawFinding, streams: string[], aheadMs: number): string | undefined {
  // From the takeover's own millisecond: an end logged before the takeover retired the writer before the engine decided,
  // so any end these writers have in that millisecond was logged after it, which the clocks cannot order either.
  // A takeover whose own lines prove another node's clock ahead (dual-writer.sql's inversion) widens the margin so.
  const retired = (stream: string) => ends(f.session, stream, f.atMs, f.atMs + CROSS_NODE_ORDER_MS + aheadMs);
  if (streams.length === 0 || !streams.every(retired)) return undefined;
  const skew = aheadMs > 0 ? ` beyond the ${aheadMs} ms its own lines show another node's clock ahead (they are in an impossible order)` : '';
  return `the writers on other nodes that the resumption at ${at(f.atMs)} took over from were retired within ${duration(CROSS_NODE_ORDER_MS)} after it${skew}: the nodes' clocks cannot order that, so whether they were fenced first cannot be told`;
}

/** Per held finding (its upgrade cited last), how far ahead its takeover's own lines show another node's clock (facts/takeover-skew.sql). */
function takeoverSkew(db: Db, opts: DetectOptions, held: { finding: RawFinding }[]): Map<RawFinding, number> {
  if (held.length === 0) return new Map();
  const asked = held.map(({ finding }) => finding.evidenceIds[finding.evidenceIds.length - 1]);
  const rows = queryRows<{ ahead_ms: number }>(db, 'facts/takeover-skew', opts, { asked: JSON.stringify(asked) });
  return new Map(held.map(({ finding }, i) => [finding, rows[i]?.ahead_ms ?? 0]));
}

/**
 * The writers on other nodes a server accepted a resumption over, by node, where that node logged nothing after
 * some time before the takeover: a node that died took its writers with it (a close no log shows), so the engine's
 * "would reject: prior writer unfenceable" holds only if it lived. The finding stands (dual-writer's does too) and
 * says so, in dual-writer's words; a dead node never fences, so refusing would leave the session unresumable.
 */
function silentWriterNodes(db: Db, opts: DetectOptions, held: { finding: RawFinding; streams: string[] }[]): (f: RawFinding, streams: string[]) => string[] {
  const asked = held.flatMap(({ finding, streams }) => streams.map((s) => [finding.session, s]));
  const rows = asked.length === 0 ? [] : queryRows<{ session: string; stream: string; node: string | null; node_last_ms: number | null }>(db, 'facts/writer-nodes', opts, { asked: JSON.stringify(asked) });
  const byStream = new Map(rows.map((r) => [`${r.session}\0${r.stream}`, r]));
  return (f, streams) => {
    const silent = new Map<string, { streams: string[]; lastMs: number }>();
    for (const stream of streams) {
      const w = byStream.get(`${f.session}\0${stream}`);
      if (w?.node == null || w.node_last_ms === null || w.node_last_ms >= f.atMs) continue;
      const n = silent.get(w.node) ?? { streams: [], lastMs: w.node_last_ms };
      n.streams.push(stream);
      silent.set(w.node, n);
    }
    return [...silent].map(([node, n]) => silentWriterNode(node, n.streams, n.lastMs));
  };
}

function withSilentWriters(f: RawFinding, notes: string[]): RawFinding {
  return notes.length === 0 ? f : { ...f, message: `${f.message} (${notes.join('; ')})` };
}

/**
 * A position the engine had not seen when the resumption named it, which the session sent within
 * CLOCK_SKEW_ALLOWANCE_MS after: a node whose clock runs ahead sent it before (the client held it), as
 * phantom-event-id takes it. The engine, replaying by logged time, could not know it, so whether a correct
 * server would have resumed cannot be told. Each finding with the reason it is not knowable, or none.
 */
function sentJustAfter(db: Db, opts: DetectOptions, held: { finding: RawFinding; eventId: string; node?: string }[]): { finding: RawFinding; reason?: string }[] {
  if (held.length === 0) return [];
  const asked = held.map(({ finding: f, eventId }) => [f.session, eventId, f.atMs]);
  const rows = queryRows<{ sent_ts: number | null; sent_node: string | null }>(db, 'facts/first-sent-after', opts, { asked: JSON.stringify(asked) });
  return held.map(({ finding, eventId, node }, i) => {
    const sent = rows[i]?.sent_ts ?? null;
    if (sent === null || sent - finding.atMs > CLOCK_SKEW_ALLOWANCE_MS) return { finding };
    const by = rows[i]?.sent_node;
    return {
      finding,
      reason: `the resumption at ${at(finding.atMs)}${node == null ? '' : ` on ${node}`} named event ${eventId}, which the session's log shows sent ${duration(sent - finding.atMs)} later${by == null ? '' : `, on ${by}`}: taken for ${clockBehind(node, by)}, so the engine, replaying by logged time, cannot tell whether a correct server held that position`,
    };
  });
}

/**
 * A reconnect the log holds nothing of its session before, whose creation another node logs within
 * CLOCK_SKEW_ALLOWANCE_MS after: the session was created before it, by a node whose clock runs ahead (the
 * served-upgrade facts take that creation so). The engine, replaying by logged time, still knew nothing of it,
 * so its answer cannot stand for a correct server's: not knowable, said as the skew it is rather than as a log
 * that starts after the creation.
 */
function createdJustAfter(db: Db, opts: DetectOptions, held: { point: UpgradePoint; reason: string }[]): { session: string | null; reason: string }[] {
  if (held.length === 0) return [];
  const asked = held.map(({ point: p }) => [p.upgrade.session, p.upgrade.tsMs, p.upgrade.node ?? null]);
  const rows = queryRows<{ created_ts: number | null; created_node: string | null }>(db, 'facts/created-soon-after', opts, { asked: JSON.stringify(asked) });
  return held.map(({ point: p, reason }, i) => {
    const row = rows[i];
    if (row?.created_ts == null) return { session: p.upgrade.session, reason };
    const u = p.upgrade;
    return {
      session: u.session,
      reason: `the ${u.decision ?? 'reconnect'} at ${at(u.tsMs)} comes before anything of ${u.session} in the log: its creation is logged ${duration(row.created_ts - u.tsMs)} after it${row.created_node === null ? '' : `, on ${row.created_node}`}; taken for ${clockBehind(u.node, row.created_node)}, so the engine, replaying by logged time, cannot tell what a correct server knew of the session`,
    };
  });
}

/**
 * The conflict stale-writer-blocks-reconnect reads (queries/rules/stale-writer-blocks-reconnect.sql):
 * a 409 other than for an unavailable window or an unknown session, or a reason naming a conflict.
 */
function isWriterConflict(u: LoggedUpgrade): boolean {
  const reason = (u.reason ?? '').toLowerCase();
  if (u.status === 409 && !['resumption_unavailable', 'session_not_found', 'unknown_session'].includes(reason)) return true;
  return /conflict|writer|already/.test(reason);
}

/**
 * Where the engine would accept by fencing a live prior writer, a server may instead refuse
 * (409) until the fence completes (seed 001). That is agreement when every such writer was
 * closed, fenced or ended with its session within the fence grace after the refusal; one that
 * stayed up longer is the stale writer the refusal waited on, and the divergence stands. Where
 * the log ends inside the grace with a writer still up, neither can be told (as
 * stale-writer-blocks-reconnect says of the same refusal): undecided, unless an earlier refusal's
 * grace, inside the log, already passed with that writer up (then every later refusal waits on a
 * writer proven stale).
 */
function stillDivergent(
  db: Db,
  ends: StreamEnds,
  refused: { finding: RawFinding; streams: string[] }[],
  graceMs: number,
): { divergent: RawFinding[]; undecided: RawFinding[] } {
  const divergent: RawFinding[] = [];
  const undecided: RawFinding[] = [];
  if (refused.length === 0) return { divergent, undecided };
  // Plumbing, not a question for queries/: the time of the log's last record.
  const logEnd = (db.prepare('SELECT max(ts_ms) FROM records').pluck().get() as number | null) ?? -Infinity;
  const provenStale = new Set<string>();
  for (const { finding: f, streams } of refused) {
    const up = streams.filter((s) => !ends(f.session, s, f.atMs, f.atMs + graceMs));
    if (up.length === 0) continue;
    if (logEnd >= f.atMs + graceMs) {
      for (const s of up) provenStale.add(`${f.session}\0${s}`);
      divergent.push(f);
    } else (up.every((s) => provenStale.has(`${f.session}\0${s}`)) ? divergent : undecided).push(f);
  }
  return { divergent, undecided };
}

/** What the explanation needs of the findings: detect/finding-table.ts, which reads the catalogue and so this module. */
export interface ExplainableFindings {
  citedBy(rule: string): Map<number, Set<string>>;
  appendToMessages(rule: string, words: ReadonlyMap<number, string>, otherwise: string): void;
}

/**
 * Rules whose findings cite a reconnect as what happened to something else, never as a decision they judge:
 * orphaned-request cites the resumption that replayed a request, or the rejected reconnect that stranded it.
 * Named as explaining a divergence, it would send a reader to a request's fate for a reconnect's answer.
 */
const CITES_RECONNECTS_AS_CONTEXT: ReadonlySet<string> = new Set(['orphaned-request']);

/**
 * Names, in every engine-divergence message, the other rules whose findings cite the same
 * upgrade: "(explained by: silent-truncation, dual-writer)", or "(no rule explains it)"; where
 * rules were switched off (a config file's rules.disable), "(no rule that ran explains it; not run:
 * …)", since one of them might have. Run once every rule's findings are in; `catalogue` orders the names.
 */
export function explainEngineDivergences(findings: ExplainableFindings, catalogue: readonly string[], notRun: readonly string[] = []): void {
  const words = new Map<number, string>();
  for (const [n, rules] of findings.citedBy(RULE)) {
    const explaining = catalogue.filter((r) => rules.has(r) && !CITES_RECONNECTS_AS_CONTEXT.has(r));
    if (explaining.length > 0) words.set(n, `(explained by: ${explaining.join(', ')})`);
  }
  const unexplained = notRun.length === 0 ? '(no rule explains it)' : `(no rule that ran explains it; not run: ${notRun.join(', ')})`;
  findings.appendToMessages(RULE, words, unexplained);
}
