import type { NotKnowable } from '../../model/finding.js';
import type { Reconnect } from '../facts/reconnects.js';
import { retentionLosses } from '../facts/buffer-evictions.js';
import { ageBeside, at, duration } from '../../model/phrasing.js';
import type { DetectorOutput, RawFinding } from '../types.js';
import { ignoredStaleHeaders, requestWords, resetDisclosure, type ServedUpgrade } from '../facts/served-upgrades.js';
import { defineRule } from '../rule.js';
import { ReconnectFacts } from '../facts/reconnect-facts.js';
import { loadServedUpgrades } from '../facts/served-upgrades.js';

// silent-reset: a request presenting a session that is live on the node that
// answered, with a Last-Event-ID that cannot be resumed, was served `fresh`
// without both a new distinct session id and reset_signalled: the client
// believes its stream continuous. A resumable id served fresh is no silent
// reset (the engine cross-check judges that decision).

interface Unresumable {
  why: string;
  evidence: number[];
}

function judgeSilentResets(served: Iterable<ServedUpgrade>, facts: ReconnectFacts): DetectorOutput {
  const findings: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  for (const u of served) {
    if (u.decision !== 'fresh' || u.lastEventId === null) continue;
    // At 2026-07-28 and later there is no stream to continue: a Last-Event-ID served fresh, unminted, was ignored.
    if (ignoredStaleHeaders(u)) continue;
    if (u.state === 'never-created' && u.priorServerId !== null && !resetDisclosure(u).told) {
      notKnowable.push({ rule: 'silent-reset', session: u.session, reason: `the log starts after ${u.session} was created: whether it was live, and event ${u.lastEventId} resumable, when it was served fresh at ${at(u.atMs)} cannot be told` });
      continue;
    }
    if (u.state !== 'live') continue;
    const r = facts.reconnectOf(u.upgradeId);
    if (r === undefined) continue;
    const disclosure = resetDisclosure(u);
    if (disclosure.told) continue;
    if (facts.isProxyOnly(u.session)) {
      notKnowable.push({ rule: 'silent-reset', session: u.session, reason: `proxy log only: whether event ${u.lastEventId} was still resumable when ${u.session} was served fresh at ${at(u.atMs)}${disclosure.unseen ? ', and whether a reset frame was sent,' : ''} could not be seen` });
      continue;
    }
    const cause = unresumable(r, facts, u);
    if (cause === undefined) continue;
    if (disclosure.unseen) {
      notKnowable.push({ rule: 'silent-reset', session: u.session, reason: `${u.session} was served fresh as ${u.newSession} at ${at(u.atMs)}, but whether a reset frame was sent could not be seen (proxy record)` });
      continue;
    }
    const node = u.node ? ` on node ${u.node}` : '';
    const fresh = u.newSession !== null ? ` as ${u.newSession === u.session ? `a re-minted ${u.session}` : u.newSession}` : '';
    findings.push({
      rule: 'silent-reset',
      session: u.session,
      atMs: u.atMs,
      message: `${u.session} was live${node}, but ${requestWords(u)}${fresh} with ${disclosure.missing}, although event ${u.lastEventId} could not be resumed (${cause.why}): the client believes its stream continuous`,
      evidenceIds: [...cause.evidence, u.upgradeId],
    });
  }
  return { findings, notKnowable };
}

function unresumable(r: Reconnect, facts: ReconnectFacts, u: ServedUpgrade): Unresumable | undefined {
  const last = r.last.own;
  if (last === null) {
    const other = r.last.elsewhere;
    if (other?.how === 'other-session') return { why: `it was sent by session ${other.session}, not by ${r.session}`, evidence: [other.recordId] };
    if (other?.how === 'earlier-incarnation') return { why: `it was sent by an earlier incarnation of ${r.session}`, evidence: [other.recordId, u.life!.recordId] };
    return { why: `${r.session} never sent it since its creation`, evidence: [u.life!.recordId] };
  }
  const [loss] = retentionLosses(r, facts.evictions, facts.opts.retention);
  if (loss?.cause === 'trimmed') return { why: `the buffer had been trimmed to ${loss.by.oldestRetained}`, evidence: [last.recordId, loss.by.id] };
  if (loss?.cause === 'log-evicted') return { why: `the session's event log was evicted`, evidence: [last.recordId, loss.by.id] };
  if (loss?.cause === 'max-age') return { why: `it was ${ageBeside(loss.ageMs, loss.limitMs)} old, beyond a retention of ${duration(loss.limitMs)}`, evidence: [last.recordId] };
  if (loss?.cause === 'max-events') return { why: `${loss.later} events followed it, and a retention of ${loss.limit} keeps the last ${loss.limit}`, evidence: [last.recordId] };
  if (r.stateChange !== null) return { why: `the session's ${r.stateChange.aspect ?? 'state'} changed after it was sent`, evidence: [last.recordId, r.stateChange.recordId] };
  if (r.answeredInWindowId !== null) return { why: 'its replay window holds a server request the client already answered', evidence: [last.recordId, r.answeredInWindowId] };
  return undefined;
}

export default defineRule({
  id: 'silent-reset',
  severity: 'error',
  family: 'session-continuity',
  summary: 'A live session with an unresumable Last-Event-ID was served fresh without telling the client.',
  seeds: ['002'],
  explanation: {
    meaning:
      'A live session presented a Last-Event-ID that could not be resumed, and the server served the request as fresh without a new distinct session id and a reset signal.',
    whyItBreaks:
      'The client sent a stream position and got a 2xx stream back, so it believes the stream is continuous, while the server started over. The gap between its position and the new stream is invisible to it.',
    shouldHave:
      'Reject with 409 resumption_unavailable, or mint a new session id and send a session_reset as the first frame, so that the client knows it must resynchronize.',
  },
  live: { reads: [], settles: 'at-once' },
  facts: [ReconnectFacts.of, loadServedUpgrades],
  detect: (ctx) => judgeSilentResets(ctx.shared(loadServedUpgrades), ctx.shared(ReconnectFacts.of)),
});
