import type { NotKnowable } from '../../model/finding.js';
import { at } from '../../model/phrasing.js';
import type { DetectorOutput, RawFinding } from '../types.js';
import { endedHow, ignoredStaleHeaders, requestWords, resetDisclosure, type ServedUpgrade } from '../facts/served-upgrades.js';
import { defineRule } from '../rule.js';
import { ReconnectFacts } from '../facts/reconnect-facts.js';
import { loadServedUpgrades } from '../facts/served-upgrades.js';

// silent-fork: a request presenting a session id the answering node could not
// know (never created in the log, ended, or created only on another node: no
// shared session store) got 2xx and a session instead of 404/410, without both
// a new distinct session id and reset_signalled.

function judgeSilentForks(served: Iterable<ServedUpgrade>, proxyOnly: (session: string) => boolean): DetectorOutput {
  const findings: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  const nk = (u: ServedUpgrade, reason: string) => notKnowable.push({ rule: 'silent-fork', session: u.session, reason });
  for (const u of served) {
    // A stateless-era request served fresh, nothing minted: its stale Mcp-Session-Id was ignored, as it should be.
    if (ignoredStaleHeaders(u)) continue;
    if (u.state === 'live') {
      if (proxyOnly(u.session)) nk(u, `proxy log only: the server's evictions of ${u.session} are not visible, so whether it was still known when ${requestWords(u)} was answered ${u.status} cannot be told`);
      continue;
    }
    const disclosure = resetDisclosure(u);
    if (disclosure.told) continue;
    // v2: a fork needs a mint (a new_session, a proxy response with another id, or a creation answering it).
    // A resume or attach that mints nothing is no fork: a node other than the creator answering it shares the store.
    const minting = u.decision === 'fresh' || u.newSession !== null || u.remintedId !== null;
    if (!minting && u.decision !== 'fresh' && (u.state === 'other-node' || u.state === 'answered-404')) continue;
    if (u.state === 'never-created' && u.priorServerId !== null) {
      // The log starts after its creation: it may have been live, or ended before the log began.
      if (minting) nk(u, `the log starts after ${u.session} was created: whether it was still known when ${requestWords(u)} was answered ${u.status} with a session and no reset signalled cannot be told`);
      continue;
    }
    if (disclosure.unseen) {
      nk(u, `proxy log only: ${u.session} was unknown and ${requestWords(u)} was answered with new session ${u.newSession}, but whether a reset frame was sent could not be seen`);
      continue;
    }
    const minted = u.newSession !== null && u.newSession !== u.session ? `new session ${u.newSession}` : u.newSession === u.session || u.remintedId !== null ? `a re-minted ${u.session}` : `the session ${u.session}`;
    const proxyNote = u.origin === 'proxy' && u.resetSignalled === null ? ' (proxy log: whether a reset frame was sent could not be seen)' : '';
    const got = `got ${u.status} and ${minted} instead of 404/410, with ${disclosure.missing}${proxyNote}`;
    const node = u.node ? ` on node ${u.node}` : '';
    const finding = (message: string, evidenceIds: number[]) => findings.push({ rule: 'silent-fork', session: u.session, atMs: u.atMs, message, evidenceIds });
    if (u.state === 'ended') {
      // A resume or attach of an ended session that hands out no session (no mint) is resume-after-end's:
      // silent-fork judges what was handed out, "a session (new or re-minted)".
      if (!minting) continue;
      finding(`${u.session} was ${endedHow(u.life!)} at ${at(u.life!.atMs)}, yet ${requestWords(u)}${node} ${got}`, [u.life!.recordId, u.upgradeId]);
    } else if (u.state === 'answered-404') {
      finding(`${u.session} was answered 404 by the server at ${at(u.life!.atMs)} (unknown since), yet ${requestWords(u)}${node} ${got}`, [u.life!.recordId, u.upgradeId]);
    } else if (u.state === 'other-node') {
      finding(otherNodeFork(u, disclosure.missing + proxyNote), [u.life!.recordId, u.upgradeId]);
    } else if (minting) {
      finding(`${u.session} was never created in the log, yet ${requestWords(u)}${node} ${got}`, [u.upgradeId, ...(u.remintedId !== null ? [u.remintedId] : [])]);
    } else {
      nk(u, `the log holds no creation of ${u.session} and nothing of it before ${requestWords(u)} at ${at(u.atMs)}: whether the server knew the session (the log may start after it was created) cannot be told`);
    }
  }
  return { findings, notKnowable };
}

/**
 * Said node first, for an on-call page: "mcp-b, which never had S-A1 (created on mcp-a; no shared session store),
 * answered a resume from event 3 with a fresh 200 re-minting S-A1 instead of 404/410, with no new session id and
 * no reset signal".
 */
function otherNodeFork(u: ServedUpgrade, missing: string): string {
  const asked = u.decision === 'attach' ? 'an attach' : u.lastEventId !== null ? `a resume from event ${u.lastEventId}` : 'a request';
  const answer = u.decision === 'fresh' ? `a fresh ${u.status}` : `${u.status}`;
  const handed =
    u.newSession !== null && u.newSession !== u.session ? `minting new session ${u.newSession}` : u.newSession === u.session || u.remintedId !== null ? `re-minting ${u.session}` : `handing out ${u.session}`;
  return (
    `${u.node}, which never had ${u.session} (created on ${u.life!.node}; no shared session store), answered ${asked} with ${answer} ${handed} ` +
    `instead of 404/410, with ${missing}`
  );
}

export default defineRule({
  id: 'silent-fork',
  severity: 'error',
  family: 'session-continuity',
  summary: 'An unknown or ended session id got a session instead of 404, with no new id and reset signal.',
  seeds: ['004', '002'],
  explanation: {
    meaning:
      'A request presenting a session id that is unknown (never created, already ended, or created only on another node without a shared session store) got 2xx and a session instead of 404 or 410, without both a new distinct session id and a reset signal.',
    whyItBreaks:
      'The session id is the identity across streams. Serving an unknown id with a new session under the old identity forks it: the client believes it continues the old session, the new event ids collide with ids it has seen, and its deduplication drops real results.',
    shouldHave:
      'Return 404 for an unknown or ended session id so that the client re-initializes; a server that serves anyway must mint a new distinct Mcp-Session-Id and send a session_reset as the first frame.',
  },
  live: { reads: [], settles: 'at-once' },
  facts: [ReconnectFacts.of, loadServedUpgrades],
  detect(ctx) {
    const facts = ctx.shared(ReconnectFacts.of);
    return judgeSilentForks(ctx.shared(loadServedUpgrades), (session) => facts.isProxyOnly(session));
  },
});
