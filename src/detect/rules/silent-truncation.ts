import type { NotKnowable } from '../../model/finding.js';
import type { Db } from '../../store/db.js';
import { compareIds, isDigits, compareNumeric, type OrderedId } from '../../model/event-order.js';
import { ReconnectFacts } from '../facts/reconnect-facts.js';
import { laneEventWindows, type LaneEvent, type LaneSegment } from '../facts/lane-events.js';
import { proxyReplayStart } from '../facts/proxy-view.js';
import { firstReplayedRef, type EventRef, type Reconnect } from '../facts/reconnects.js';
import { logDroppedBetween, retentionLosses, unplacedTrim, type BufferEviction, type Evictions, type RetentionLoss } from '../facts/buffer-evictions.js';
import { ageBeside, at, duration, idList, plural } from '../../model/phrasing.js';
import type { DetectOptions, DetectorOutput, RawFinding } from '../types.js';
import { defineRule } from '../rule.js';
import { statuslessReconnects } from '../facts/statusless-reconnects.js';
import { appendAll } from '../../model/arrays.js';
import { loadLateWrites, NO_LATE_WRITES } from '../facts/late-writes.js';

// silent-truncation: an accepted resumption whose replay cannot have been
// complete. Three ways: the position was no longer retained, fewer events were
// replayed than the lane sent after it, or the replay began past the event
// right after it. What-if needs to tell the first way (retention) from the
// others (a short replay), so every cause is reported, not only the first.

export type TruncationCause = 'trimmed' | 'log-evicted' | 'max-age' | 'max-events' | 'short-replay' | 'late-first-replayed';

/** Causes that come from the retention policy (what-if changes these), as opposed to the replay itself. */
export const RETENTION_CAUSES: ReadonlySet<TruncationCause> = new Set(['trimmed', 'log-evicted', 'max-age', 'max-events']);

export interface Truncation {
  upgradeId: number;
  session: string;
  atMs: number;
  /** Every cause that holds, the one the message leads with first. */
  causes: TruncationCause[];
  /** Under a what-if retention: Last-Event-ID, never logged as sent, so that retention cannot be judged for it (the logged trim stands). */
  unplaced?: { eventId: string };
  finding: RawFinding;
}

export interface TruncationJudgement {
  truncations: Truncation[];
  notKnowable: NotKnowable[];
}

const MAX_WINDOW_EVIDENCE = 20;

interface Candidate {
  r: Reconnect;
  losses: RetentionLoss[];
  replayedCount: number | null;
  first: EventRef | undefined;
  short: boolean;
  late: boolean;
  window: LaneSegment;
}

/** A replayed counter absent where the window held events: not knowable, unless they were all late writes. */
interface UncountedReplay {
  r: Reconnect;
  window: LaneSegment;
}

/** Judges every accepted resumption under `opts.retention` ('as-logged' or a what-if age/count limit). */
export function truncationCauses(db: Db, opts: DetectOptions, facts: ReconnectFacts): TruncationJudgement {
  const truncations: Truncation[] = [];
  let notKnowable: NotKnowable[] = [];
  let candidates: Candidate[] = [];
  const uncounted = new Map<NotKnowable, UncountedReplay>();
  const fromEarlierIncarnation: Reconnect[] = [];
  for (const r of facts.resumptions) {
    if (facts.isProxyOnly(r.session)) {
      judgeProxyOnly(facts, r, truncations, notKnowable);
      continue;
    }
    if (r.window === null) {
      // With the session's creation in the log, an id it never sent is phantom-event-id's, not a retention loss.
      // Under a what-if retention too: an event the log never shows sent has no age or place to judge a
      // retention by, so the logged trim's verdict stands (marked, for the what-if to say why it stays).
      const trim = r.incarnationId === null && r.last.elsewhere === null ? unplacedTrim(r, facts.evictions) : undefined;
      if (trim) {
        truncations.push({ ...trimmedUnplaced(r, trim), ...(opts.retention !== 'as-logged' && { unplaced: { eventId: String(r.last.eventId) } }) });
        continue;
      }
      if (r.incarnationId === null && r.last.elsewhere === null) {
        notKnowable.push(nk(r.session, `the log starts after ${r.session} was created and never shows event ${r.last.eventId} sent, so whether the resumption at ${at(r.atMs)} replayed everything after it cannot be told`));
      }
      if (r.last.elsewhere?.how === 'earlier-incarnation') fromEarlierIncarnation.push(r);
      continue;
    }
    // The Last-Event-ID's own send, or its later one on another clock (sent first, by a node whose clock runs ahead).
    const last = r.window.from;
    const afterCount = r.window.afterCount;
    const losses = retentionLosses(r, facts.evictions, opts.retention);
    const replayedCount = r.replayed ?? r.replayedIds?.length ?? null;
    const first = firstReplayedRef(r);
    const short = replayedCount !== null && replayedCount < afterCount;
    const late = startsLate(r, first);
    const window: LaneSegment = { session: r.session, lane: last.lane, fromPos: last.pos + 1, toPos: r.window.headPos, reach: r.window.reach };
    if (losses.length > 0 || short || late) {
      candidates.push({ r, losses, replayedCount, first, short, late, window });
    } else if (replayedCount === null && afterCount > 0) {
      const entry = uncountedReplay(r, afterCount);
      uncounted.set(entry, { r, window });
      notKnowable.push(entry);
    }
  }
  // Only a window the replay fell short of, or whose replay was not counted, can hold a late write that matters:
  // asked for those alone (after the resumptions were read: the rule's query stages tables of its own).
  let lateWrites = NO_LATE_WRITES;
  const owing = [...candidates.filter((c) => c.short).map((c) => c.window), ...[...uncounted.values()].map((u) => u.window)];
  if (owing.length > 0) {
    lateWrites = loadLateWrites(db, opts, owing);
    const owed = (r: Reconnect, window: LaneSegment) => r.window!.afterCount - lateWrites.countIn(window, r.window!.from.stream);
    for (const c of candidates) c.short &&= c.replayedCount! < owed(c.r, c.window);
    candidates = candidates.filter((c) => c.losses.length > 0 || c.short || c.late);
    notKnowable = notKnowable.flatMap((n) => {
      const u = uncounted.get(n);
      if (u === undefined) return [n];
      const count = owed(u.r, u.window);
      return count > 0 ? [uncountedReplay(u.r, count)] : [];
    });
  }
  appendAll(truncations, droppedWithEarlierIncarnation(db, fromEarlierIncarnation, facts.evictions));
  // The events of a window are fetched only for resumptions that replayed short or started late: their ids and
  // lines are the witness. A trimmed position needs none, and a client whose cursor never moves makes every
  // window the lane so far (25k such resumptions in one session fetched 6.8 GB of them).
  const witnessed = (c: Candidate) => c.short || c.late;
  // A window at a time: the statement stays open meanwhile, so nothing here may query the database.
  const windows = laneEventWindows(db, candidates.filter(witnessed).map((c) => c.window));
  try {
    // the window as owed: late writes to other streams left out of the ids named missing and the lines cited
    const owedOf = (c: Candidate, window: LaneEvent[]) => window.filter((e) => !lateWrites.unowed(e.recordId, c.r.window!.from.stream));
    for (const c of candidates) truncations.push(describe(c, witnessed(c) ? owedOf(c, windows.next().value ?? []) : []));
  } finally {
    windows.return();
  }
  return { truncations, notKnowable };
}

interface Cause {
  cause: TruncationCause;
  /** Completes "resumed S1 from event 5 on g1 …" when this cause leads the message. */
  phrase: string;
  /** A few words for the causes that follow the lead one. */
  brief: string;
  evidence: number[];
}

function describe(c: Candidate, window: LaneEvent[]): Truncation {
  const { r } = c;
  const last = r.window!.from;
  const causes: Cause[] = c.losses.map((l) => retentionCause(r, l));
  if (c.short) causes.push(shortReplay(r, window, c.replayedCount!, c.first));
  if (c.late) causes.push(lateStart(r, window, c.first!));
  const [lead, ...rest] = causes as [Cause, ...Cause[]];
  const also = rest.length > 0 ? `; also ${rest.map((x) => x.brief).join('; ')}` : '';
  return {
    upgradeId: r.upgradeId,
    session: r.session,
    atMs: r.atMs,
    causes: causes.map((x) => x.cause),
    finding: {
      rule: 'silent-truncation',
      session: r.session,
      atMs: r.atMs,
      message: `resumed ${r.session} from event ${r.last.eventId} on ${last.stream} ${lead.phrase}${also}`,
      evidenceIds: [last.recordId, ...lead.evidence, r.upgradeId],
    },
  };
}

function retentionCause(r: Reconnect, loss: RetentionLoss): Cause {
  const id = r.last.eventId;
  switch (loss.cause) {
    case 'trimmed':
      return {
        cause: 'trimmed',
        phrase: `although the buffer${loss.by.stream ? ` of ${loss.by.stream}` : ''} had been trimmed to ${loss.by.oldestRetained} at ${at(loss.by.atMs)}: event ${id} was no longer retained, so the replay cannot have been complete`,
        brief: `the buffer had been trimmed to ${loss.by.oldestRetained}`,
        evidence: [loss.by.id],
      };
    case 'log-evicted':
      return {
        cause: 'log-evicted',
        phrase: `although ${r.session}'s event log was evicted at ${at(loss.by.atMs)}${loss.by.reason ? ` (${loss.by.reason})` : ''}: event ${id} was no longer retained, so the replay cannot have been complete`,
        brief: `${r.session}'s event log had been evicted`,
        evidence: [loss.by.id],
      };
    case 'max-age':
      return {
        cause: 'max-age',
        phrase: `${ageBeside(loss.ageMs, loss.limitMs)} after it was sent, beyond a retention of ${duration(loss.limitMs)}: event ${id} would no longer be retained`,
        brief: `event ${id} was older than a retention of ${duration(loss.limitMs)}`,
        evidence: [],
      };
    case 'max-events':
      return {
        cause: 'max-events',
        phrase: `with ${plural(loss.later, 'event')} sent after it, where a retention of ${plural(loss.limit, 'event')} keeps the last ${loss.limit}: event ${id} would no longer be retained`,
        brief: `${plural(loss.later, 'event')} followed it, and a retention of ${loss.limit} keeps the last ${loss.limit}`,
        evidence: loss.headId === null ? [] : [loss.headId],
      };
  }
}

/** Fewer replayed than the lane sent after Last-Event-ID before the upgrade. */
function shortReplay(r: Reconnect, window: LaneEvent[], replayedCount: number, first: EventRef | undefined): Cause {
  let missing: LaneEvent[];
  if (r.replayedIds !== null) {
    const listed = new Set(r.replayedIds);
    missing = window.filter((e) => !listed.has(e.eventId));
  } else {
    // Without the list, the replay is taken to run in order from its first id (or from the start).
    const start = first ? Math.max(0, windowIndex(window, first)) : 0;
    const replayed = new Set(window.slice(start, start + replayedCount).map((e) => e.recordId));
    missing = window.filter((e) => !replayed.has(e.recordId));
  }
  const missingIds = missing.map((e) => e.eventId);
  // "missing event 8", not "8 missing": a numeric id reads as a count
  const missingNote = missingIds.length > 0 ? ` (missing ${missingIds.length === 1 ? 'event' : 'events'} ${idList(missingIds)})` : '';
  return {
    cause: 'short-replay',
    phrase: `but replayed ${replayedCount} of ${plural(window.length, 'event')} sent after it${missingNote}`,
    brief: `only ${replayedCount} of ${plural(window.length, 'event')} were replayed${missingNote}`,
    evidence: window.slice(0, MAX_WINDOW_EVIDENCE).map((e) => e.recordId),
  };
}

/**
 * Where `first` lies in the window: its emission before the upgrade, else (its send logged after the upgrade by a
 * node whose clock runs ahead, in the window by causality) its id; -1 where it is not in the window.
 */
function windowIndex(window: LaneEvent[], first: EventRef): number {
  return first.own ? window.findIndex((e) => e.recordId === first.own!.recordId) : window.findIndex((e) => e.eventId === first.eventId);
}

/** Does the replay begin later than the event sent right after Last-Event-ID? */
function startsLate(r: Reconnect, first: EventRef | undefined): boolean {
  const next = r.window?.next;
  const last = r.window?.from;
  if (first === undefined || next == null || last === undefined) return false;
  const nextRef: OrderedId = { eventId: next.eventId, own: { recordId: next.recordId, stream: last.stream, lane: last.lane, pos: last.pos + 1, tsMs: 0 } };
  return (compareIds(first, nextRef) ?? 0) > 0;
}

function lateStart(r: Reconnect, window: LaneEvent[], first: EventRef): Cause {
  const last = r.window!.from;
  const inWindow = first.own ? -1 : windowIndex(window, first);
  const skipped =
    inWindow >= 0
      ? window.slice(0, inWindow)
      : window.filter((e) =>
          first.own && first.own.lane === last.lane ? e.pos < first.own.pos : isDigits(e.eventId) && compareNumeric(e.eventId, first.eventId) < 0,
        );
  return {
    cause: 'late-first-replayed',
    phrase: `but the replay ${first.role === 'first_seen' ? 'the proxy saw ' : ''}started at ${first.eventId}, skipping ${idList(skipped.map((e) => e.eventId))} sent after it`,
    brief: `the replay started at ${first.eventId}`,
    evidence: [r.window!.next!.recordId, ...(first.own ? [first.own.recordId] : inWindow >= 0 ? [window[inWindow]!.recordId] : [])],
  };
}

/**
 * Last-Event-ID was sent only by an earlier incarnation of the session id, and a session.evicted
 * that dropped the log came between that send and the reconnect: the position was no longer
 * retained (rules.md), whatever else is wrong with resuming another incarnation's id.
 */
function droppedWithEarlierIncarnation(db: Db, resumptions: Reconnect[], evictions: Evictions): Truncation[] {
  if (resumptions.length === 0) return [];
  // Plumbing, not a question for queries/: the times of records already chosen, looked up by id.
  const sentAt = new Map(
    (db.prepare('SELECT id, ts_ms FROM records WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(resumptions.map((r) => r.last.elsewhere!.recordId))) as { id: number; ts_ms: number }[]).map((x) => [x.id, x.ts_ms]),
  );
  const out: Truncation[] = [];
  for (const r of resumptions) {
    const sentId = r.last.elsewhere!.recordId;
    const dropped = logDroppedBetween(r, sentAt.get(sentId)!, sentId, evictions);
    if (!dropped) continue;
    out.push(
      truncation(
        r,
        'log-evicted',
        `resumed ${r.session} from event ${r.last.eventId}, which an earlier incarnation of ${r.session} sent, although that event log was evicted at ${at(dropped.atMs)}` +
          `${dropped.reason ? ` (${dropped.reason})` : ''}: event ${r.last.eventId} was no longer retained, so the replay cannot have been complete`,
        [sentId, dropped.id, r.upgradeId],
      ),
    );
  }
  return out;
}

/** A truncation with one cause, found without a replay window to describe. */
function truncation(r: Reconnect, cause: TruncationCause, message: string, evidenceIds: number[]): Truncation {
  return { upgradeId: r.upgradeId, session: r.session, atMs: r.atMs, causes: [cause], finding: { rule: 'silent-truncation', session: r.session, atMs: r.atMs, message, evidenceIds } };
}

/** The log never shows Last-Event-ID sent, but a trim before the reconnect names a later id. */
function trimmedUnplaced(r: Reconnect, trim: BufferEviction): Truncation {
  const id = r.last.eventId;
  return truncation(
    r,
    'trimmed',
    `resumed ${r.session} from event ${id}${r.stream ? ` on ${r.stream}` : ''} although the buffer${trim.stream ? ` of ${trim.stream}` : ''} had been trimmed to ${trim.oldestRetained} at ${at(trim.atMs)}: ` +
      `event ${id} comes before it (the log never shows it sent, so its number decides), so it was no longer retained and the replay cannot have been complete`,
    [trim.id, r.upgradeId],
  );
}

function judgeProxyOnly(facts: ReconnectFacts, r: Reconnect, truncations: Truncation[], notKnowable: NotKnowable[]): void {
  const start = proxyReplayStart(facts.proxy, r);
  const unseen = "the replay count and the server's retention could not be seen";
  if (start.kind === 'unknown') {
    notKnowable.push(nk(r.session, `proxy log only: for the resumption at ${at(r.atMs)} from event ${r.last.eventId}, ${start.unseen} and ${unseen}`));
  } else if (start.kind === 'continuous') {
    // No gap the proxy could see; a trim that evicted the position would not show in its log.
    notKnowable.push(nk(r.session, `proxy log only: the replay of the resumption at ${at(r.atMs)} from event ${r.last.eventId} began where it should, but whether the server still retained event ${r.last.eventId} (its trims) could not be seen`));
  } else if (start.kind === 'skipped') {
    truncations.push(
      truncation(
        r,
        'late-first-replayed',
        `resumed ${r.session} from event ${r.last.eventId} but the replay the proxy saw started at ${start.first}, skipping ${idList(start.skipped)} sent after it (proxy log only: ${unseen})`,
        [start.seenIn, r.upgradeId],
      ),
    );
  }
}

/** The rule's output from a judgement (what-if keeps the judgement for its remaining truncations). */
export function truncationOutput(t: TruncationJudgement): DetectorOutput {
  return { findings: t.truncations.map((x) => x.finding), notKnowable: t.notKnowable };
}

function uncountedReplay(r: Reconnect, afterCount: number): NotKnowable {
  const seen = r.origin === 'proxy' ? 'the proxy record cannot show' : 'the upgrade did not log';
  return nk(r.session, `how many events the resumption at ${at(r.atMs)} from event ${r.last.eventId} replayed (${plural(afterCount, 'event')} had been sent after it) ${seen}: the replayed counter is absent`);
}

function nk(session: string, reason: string): NotKnowable {
  return { rule: 'silent-truncation', session, reason };
}

export default defineRule({
  id: 'silent-truncation',
  severity: 'error',
  family: 'replay-integrity',
  summary: 'A resumption was accepted although its replay cannot have been complete.',
  seeds: ['002', '001'],
  explanation: {
    meaning:
      'The server accepted a stream resumption (2xx to a Last-Event-ID) although the replay cannot have been complete: the event named by Last-Event-ID was no longer in the buffer, fewer events were replayed than the stream had sent after it, or the replay started later than the event sent right after it.',
    whyItBreaks:
      'Last-Event-ID asks for every event after one position in one stream, and a 2xx resume promises the client a continuous stream. The events it never got (a capability change, a server request) are lost without a trace, and the client goes on acting on state it never saw.',
    shouldHave:
      'Resume only while the position is still retained, and replay everything after it. When the window has been evicted, reject with 409 resumption_unavailable, or start a fresh session with a new Mcp-Session-Id and a session_reset as the first frame. Never replay from the oldest retained event as if nothing was missing.',
  },
  live: { reads: [], settles: 'at-once' },
  facts: [ReconnectFacts.of],
  detect: (ctx) => {
    const t = truncationCauses(ctx.db, ctx.opts, ctx.shared(ReconnectFacts.of));
    return truncationOutput({ ...t, notKnowable: [...t.notKnowable, ...statuslessReconnects(ctx.db, ctx.opts, 'silent-truncation')] });
  },
});
