import type { NotKnowable } from '../../model/finding.js';
import type { Db } from '../../store/db.js';
import { compareIds, isDigits, compareNumeric, type OrderedId } from '../resumption/event-order.js';
import { ReconnectFacts } from '../resumption/facts.js';
import { laneEvents, type LaneEvent, type LaneSegment } from '../resumption/lane-events.js';
import { proxyReplayStart } from '../resumption/proxy-view.js';
import { firstReplayedRef, type EventRef, type Reconnect } from '../resumption/reconnects.js';
import { retentionLosses, type RetentionLoss } from '../resumption/retention.js';
import { at, idList, plural, seconds } from '../resumption/wording.js';
import type { DetectOptions, RawFinding } from '../types.js';

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
  finding: RawFinding;
}

export interface TruncationJudgement {
  truncations: Truncation[];
  notKnowable: NotKnowable[];
}

const MAX_WINDOW_EVIDENCE = 20;

/** Judges every accepted resumption under `opts.retention` ('as-logged' or a what-if age/count limit). */
export function truncationCauses(db: Db, opts: DetectOptions, facts = new ReconnectFacts(db, opts)): TruncationJudgement {
  const truncations: Truncation[] = [];
  const notKnowable: NotKnowable[] = [];
  const judged: { r: Reconnect; losses: RetentionLoss[]; window: LaneSegment }[] = [];
  for (const r of facts.resumptions) {
    if (facts.isProxyOnly(r.session)) {
      judgeProxyOnly(facts, r, truncations, notKnowable);
    } else if (r.last.own === null) {
      if (r.incarnationId === null && r.last.elsewhere === null) {
        notKnowable.push(nk(r.session, `the log starts after ${r.session} was created and never shows event ${r.last.eventId} sent, so whether the resumption at ${at(r.atMs)} replayed everything after it cannot be told`));
      }
    } else {
      const last = r.last.own;
      const losses = retentionLosses(r, facts.evictions, opts.retention);
      judged.push({ r, losses, window: { session: r.session, lane: last.lane, fromPos: last.pos + 1, toPos: last.pos + r.window!.afterCount } });
    }
  }
  const eventsOf = laneEvents(db, judged.map((j) => j.window));
  for (const { r, losses, window } of judged) {
    const verdict = judgeReplay(r, losses, eventsOf(window));
    if (verdict.truncation) truncations.push(verdict.truncation);
    if (verdict.notKnowable) notKnowable.push(verdict.notKnowable);
  }
  return { truncations, notKnowable };
}

interface Cause {
  cause: TruncationCause;
  phrase: string;
  evidence: number[];
}

function judgeReplay(r: Reconnect, losses: RetentionLoss[], window: LaneEvent[]): { truncation?: Truncation; notKnowable?: NotKnowable } {
  const last = r.last.own!;
  const causes: Cause[] = losses.map((l) => retentionCause(r, l));
  const replayedCount = r.replayed ?? r.replayedIds?.length ?? null;
  const first = firstReplayedRef(r);
  const short = shortReplay(r, window, replayedCount, first);
  if (short) causes.push(short);
  const late = lateStart(r, window, first);
  if (late) causes.push(late);

  if (causes.length === 0) {
    if (replayedCount === null && window.length > 0) {
      const seen = r.origin === 'proxy' ? 'the proxy record cannot show' : 'the upgrade did not log';
      return {
        notKnowable: nk(r.session, `how many events the resumption at ${at(r.atMs)} from event ${r.last.eventId} replayed (${plural(window.length, 'event')} had been sent after it) ${seen}: the replayed counter is absent`),
      };
    }
    return {};
  }
  const [lead, ...rest] = causes as [Cause, ...Cause[]];
  const also = rest.length > 0 ? `; also ${rest.map((c) => c.phrase).join('; ')}` : '';
  const message = `resumed ${r.session} from event ${r.last.eventId} on ${last.stream} ${lead.phrase}${also}`;
  return {
    truncation: {
      upgradeId: r.upgradeId,
      session: r.session,
      atMs: r.atMs,
      causes: causes.map((c) => c.cause),
      finding: {
        rule: 'silent-truncation',
        session: r.session,
        atMs: r.atMs,
        message,
        evidenceIds: [last.recordId, ...lead.evidence, r.upgradeId],
      },
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
        evidence: [loss.by.id],
      };
    case 'log-evicted':
      return {
        cause: 'log-evicted',
        phrase: `although ${r.session}'s event log was evicted at ${at(loss.by.atMs)}${loss.by.reason ? ` (${loss.by.reason})` : ''}: event ${id} was no longer retained, so the replay cannot have been complete`,
        evidence: [loss.by.id],
      };
    case 'max-age':
      return {
        cause: 'max-age',
        phrase: `${seconds(loss.ageMs)} after it was sent, beyond a retention of ${seconds(loss.limitMs)}: event ${id} would no longer be retained`,
        evidence: [],
      };
    case 'max-events':
      return {
        cause: 'max-events',
        phrase: `with ${plural(loss.later, 'event')} sent after it, beyond a retention of ${plural(loss.limit, 'event')}: event ${id} would no longer be retained`,
        evidence: loss.headId === null ? [] : [loss.headId],
      };
  }
}

/** Fewer replayed than the lane sent after Last-Event-ID before the upgrade. */
function shortReplay(r: Reconnect, window: LaneEvent[], replayedCount: number | null, first: EventRef | undefined): Cause | undefined {
  if (replayedCount === null || replayedCount >= window.length) return undefined;
  let missing: LaneEvent[];
  if (r.replayedIds !== null) {
    const listed = new Set(r.replayedIds);
    missing = window.filter((e) => !listed.has(e.eventId));
  } else {
    // Without the list, the replay is taken to run in order from its first id (or from the start).
    const start = first?.own ? Math.max(0, window.findIndex((e) => e.recordId === first.own!.recordId)) : 0;
    const replayed = new Set(window.slice(start, start + replayedCount).map((e) => e.recordId));
    missing = window.filter((e) => !replayed.has(e.recordId));
  }
  const missingIds = missing.map((e) => e.eventId);
  return {
    cause: 'short-replay',
    phrase: `but replayed ${replayedCount} of ${plural(window.length, 'event')} sent after it${missingIds.length > 0 ? ` (${idList(missingIds)} missing)` : ''}`,
    evidence: window.slice(0, MAX_WINDOW_EVIDENCE).map((e) => e.recordId),
  };
}

/** The replay began later than the event sent right after Last-Event-ID. */
function lateStart(r: Reconnect, window: LaneEvent[], first: EventRef | undefined): Cause | undefined {
  const next = window[0];
  if (first === undefined || next === undefined) return undefined;
  const last = r.last.own!;
  const nextRef: OrderedId = { eventId: next.eventId, own: { recordId: next.recordId, stream: last.stream, lane: last.lane, pos: next.pos, tsMs: 0 } };
  if ((compareIds(first, nextRef) ?? 0) <= 0) return undefined;
  const skipped = window.filter((e) =>
    first.own && first.own.lane === last.lane ? e.pos < first.own.pos : isDigits(e.eventId) && compareNumeric(e.eventId, first.eventId) < 0,
  );
  return {
    cause: 'late-first-replayed',
    phrase: `but the replay ${first.role === 'first_seen' ? 'the proxy saw ' : ''}started at ${first.eventId}, skipping ${idList(skipped.map((e) => e.eventId))} sent after it`,
    evidence: [next.recordId, ...(first.own ? [first.own.recordId] : [])],
  };
}

function judgeProxyOnly(facts: ReconnectFacts, r: Reconnect, truncations: Truncation[], notKnowable: NotKnowable[]): void {
  const start = proxyReplayStart(facts.proxy, r);
  const unseen = "the replay count and the server's retention could not be seen";
  if (start.kind === 'unknown') {
    notKnowable.push(nk(r.session, `proxy log only: for the resumption at ${at(r.atMs)} from event ${r.last.eventId}, ${start.unseen} and ${unseen}`));
  } else if (start.kind === 'skipped') {
    truncations.push({
      upgradeId: r.upgradeId,
      session: r.session,
      atMs: r.atMs,
      causes: ['late-first-replayed'],
      finding: {
        rule: 'silent-truncation',
        session: r.session,
        atMs: r.atMs,
        message: `resumed ${r.session} from event ${r.last.eventId} but the replay the proxy saw started at ${start.first}, skipping ${idList(start.skipped)} sent after it (proxy log only: ${unseen})`,
        evidenceIds: [start.seenIn, r.upgradeId],
      },
    });
  }
}

function nk(session: string, reason: string): NotKnowable {
  return { rule: 'silent-truncation', session, reason };
}
