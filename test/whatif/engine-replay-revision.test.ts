// The engine replay over the store judges each session by the protocol revision it
// speaks: its logged protocol_version (the session_versions view, inherited by its other records).

import { describe, expect, it } from 'vitest';
import { forEachUpgrade, type SessionPoint, type UpgradePoint } from '../../src/replay/engine-replay.js';
import { deriveTimeline } from '../../src/store/derive.js';
import { analyzeLines, at, findingsOf, workspaceOf, type LogLine } from '../helpers/logs.js';

/** A session whose GET stream broke and was resumed from event 1, replaying 2; `version` on the given record kind only. */
function resumedSession(session: string, version: string | undefined, versionOn = 'session.created', offset = 0): LogLine[] {
  const v = (kind: string) => (version !== undefined && kind === versionOn ? { protocol_version: version } : {});
  const t = (ms: number) => at(offset + ms);
  return [
    { ts: t(0), kind: 'session.created', session, ...v('session.created') },
    { ts: t(10), kind: 'stream.opened', session, stream: 'g1', via: 'get', ...v('stream.opened') },
    { ts: t(20), kind: 'event.sent', session, stream: 'g1', event_id: 1 },
    { ts: t(30), kind: 'event.sent', session, stream: 'g1', event_id: 2 },
    { ts: t(40), kind: 'stream.closed', session, stream: 'g1', reason: 'error' },
    { ts: t(50), kind: 'upgrade', session, last_event_id: 1, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 1, first_replayed: 2, ...v('upgrade') },
    { ts: t(60), kind: 'stream.closed', session, stream: 'g2', reason: 'client', ...v('late') },
  ];
}

describe('engine-divergence by the revision each session speaks', () => {
  // An upgrade with Last-Event-ID may be a POST (log-format.md), and a 2026-07-28 client opens no GET stream: the
  // engine serves it on its own, whatever session it presents (a header that revision ignores).
  it('a resumption a 2026-07-28 session got is a divergence: the engine would serve the request on its own', async () => {
    const report = await analyzeLines(resumedSession('S1', '2026-07-28'));
    const [d] = findingsOf(report, 'engine-divergence');
    expect(d?.message).toContain('server resumed S1 from 1 (200); a correct server would serve it on its own, with no session and nothing replayed');
  });

  it('a 2026-07-28 request the log knows is a GET (a proxy line), or that carries no Last-Event-ID and mints nothing, is a 405', async () => {
    const proxyGet = { ts: at(0), kind: 'http', method: 'GET', path: '/mcp', status: 405, req_headers: { 'mcp-protocol-version': '2026-07-28', 'last-event-id': '41' }, resp_headers: {} };
    const serverGet = { ts: at(1000), kind: 'upgrade', session: null, last_event_id: null, decision: 'reject', status: 405, reason: 'method_not_allowed', protocol_version: '2026-07-28' };
    expect(findingsOf(await analyzeLines([proxyGet, serverGet]), 'engine-divergence')).toEqual([]);
    // near miss: the server's record with a Last-Event-ID (a POST, for a client that opens no GET stream), refused 405, diverges
    const [d] = findingsOf(await analyzeLines([{ ...serverGet, last_event_id: '41' }]), 'engine-divergence');
    expect(d?.message).toContain('a correct server would serve it on its own');
  });

  // A 2026-07-28 client opens no GET stream: a session-less request of that revision that carries Last-Event-ID
  // is a POST with a stale header, served on its own. Judged as the engine's default GET, it was a 405 divergence.
  const stalePost = (version: string, session: string | null) => [
    { ts: at(0), kind: 'session.created', session: 'S1', protocol_version: '2025-11-25' },
    { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' },
    { ts: at(1000), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 7 },
    { ts: at(5000), kind: 'upgrade', session, last_event_id: 7, decision: 'fresh', status: 200, protocol_version: version, new_stream: 'p9', principal: 'bob' },
  ];

  it('near miss: a session-less 2026-07-28 request served fresh with a stale Last-Event-ID is a POST served on its own', async () => {
    expect(findingsOf(await analyzeLines(stalePost('2026-07-28', null)), 'engine-divergence')).toEqual([]);
  });

  it('a stale session id on that 2026-07-28 request does not make it a GET: still a POST served on its own', async () => {
    expect(findingsOf(await analyzeLines(stalePost('2026-07-28', 'S1')), 'engine-divergence')).toEqual([]);
    expect(findingsOf(await analyzeLines(stalePost('2026-07-28', 'OLD-S')), 'engine-divergence')).toEqual([]);
  });

  it('the same answer to a session-less request at 2025-11-25 is still a divergence (a correct server rejects it 400)', async () => {
    const [d] = findingsOf(await analyzeLines(stalePost('2025-11-25', null)), 'engine-divergence');
    expect(d?.message).toContain('a correct server would reject 400');
  });

  it.each(['2025-11-25', '2025-06-18', '2025-03-26', undefined])('near miss: the same session at %s is resumed as logged', async (version) => {
    expect(findingsOf(await analyzeLines(resumedSession('S1', version)), 'engine-divergence')).toEqual([]);
  });

  it('a version logged only on a record after the upgrade is still the session’s', async () => {
    const ws = await workspaceOf(resumedSession('S1', '2025-06-18', 'late'));
    try {
      deriveTimeline(ws.db);
      const points: UpgradePoint[] = [];
      const sessions: SessionPoint[] = [];
      forEachUpgrade(ws.db, (p) => points.push(p), { onSession: (s) => sessions.push(s) });
      expect(points.map((p) => [p.upgrade.session, p.request.protocolVersion])).toEqual([['S1', '2025-06-18']]);
      expect(sessions.map((s) => [s.session, s.protocolVersion, s.state.incarnations.length])).toEqual([['S1', '2025-06-18', 1]]);
    } finally {
      ws.db.close();
    }
  });

  it("the upgrade's own version goes before its session's, and each session keeps its own", async () => {
    const ws = await workspaceOf([...resumedSession('S1', '2025-11-25'), ...resumedSession('S2', '2026-07-28', 'upgrade', 1000)]);
    try {
      deriveTimeline(ws.db);
      const seen: [string | null, string | undefined][] = [];
      forEachUpgrade(ws.db, (p) => seen.push([p.upgrade.session, p.request.protocolVersion]));
      expect(seen).toEqual([
        ['S1', '2025-11-25'],
        ['S2', '2026-07-28'],
      ]);
    } finally {
      ws.db.close();
    }
  });

  it('an initialize that minted a 2026-07-28 session is one the engine would refuse (400)', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'upgrade', session: null, last_event_id: null, decision: 'fresh', status: 200, new_session: 'S9', new_stream: 'p1' },
      { ts: at(0), kind: 'session.created', session: 'S9', protocol_version: '2026-07-28' },
    ]);
    const messages = findingsOf(report, 'engine-divergence').map((f) => f.message);
    expect(messages).toEqual([expect.stringContaining('a correct server would reject 400 initialize_unsupported')]);
  });
});
