import { describe, expect, it } from 'vitest';
// The README's "Using the engine in a server" example, kept compiling and true.
import { ResumptionEngine } from '../../src/engine/index.js';

describe('README: using the engine in a server', () => {
  it('decides a reconnect the way the README says', () => {
    const engine = new ResumptionEngine({ retention: { maxAgeMs: 30_000 }, unresumable: 'reject' });
    const t0 = Date.parse('2026-11-09T10:00:00Z');
    // Feed it what the server does, as it happens (the same records the log holds):
    engine.observe({ kind: 'session.created', session: 'S1', tsMs: t0, principal: 'alice' });
    engine.observe({ kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get', tsMs: t0 + 10 });
    engine.observe({ kind: 'event.sent', session: 'S1', stream: 'g1', eventId: '5', tsMs: t0 + 1000 });
    engine.observe({ kind: 'event.sent', session: 'S1', stream: 'g1', eventId: '6', tsMs: t0 + 2000 });
    // On every GET (and the initialize POST), ask it:
    const d = engine.decide({ sessionId: 'S1', lastEventId: '5', tsMs: t0 + 5000, principal: 'alice' });
    expect(d).toMatchObject({ decision: 'resume', status: 200, replay: ['6'], fence: ['g1'] });
    // 40 s later the position is out of the 30 s retention: reject with 409, never a silent partial replay.
    const late = engine.decide({ sessionId: 'S1', lastEventId: '5', tsMs: t0 + 41_000, principal: 'alice' });
    expect(late).toMatchObject({ decision: 'reject', status: 409, reason: 'resumption_unavailable', checks: ['position_evicted'] });
    // A session id it never saw created: 404, so the client re-initializes (never a silently minted replacement).
    expect(engine.decide({ sessionId: 'S9', lastEventId: '5', tsMs: t0 + 5000 })).toMatchObject({ decision: 'reject', status: 404 });
  });

  it('the initialize POST says so; without it, a request with no session is refused', () => {
    const engine = new ResumptionEngine();
    const header = (headers: Record<string, string | string[] | undefined>, name: string) => [headers[name]].flat()[0] ?? null;
    const req = { headers: { 'content-type': 'application/json' } as Record<string, string | string[] | undefined> };
    const init = engine.decide({ sessionId: header(req.headers, 'mcp-session-id'), lastEventId: header(req.headers, 'last-event-id'), isInitialize: true, tsMs: 0 });
    expect(init).toMatchObject({ decision: 'fresh', status: 200 });
    expect(engine.decide({ sessionId: null, lastEventId: null, tsMs: 0 })).toMatchObject({ decision: 'reject', status: 400, reason: 'session_required' });
    // Headers Node gives as arrays read as their first value.
    expect(header({ 'last-event-id': ['7', '8'] }, 'last-event-id')).toBe('7');
  });

  it('forget() drops an ended session\'s state', () => {
    const engine = new ResumptionEngine();
    engine.observe({ kind: 'session.created', session: 'S1', tsMs: 0 });
    engine.observe({ kind: 'session.terminated', session: 'S1', tsMs: 1 });
    expect(engine.sessions().has('S1')).toBe(true);
    expect(engine.forget('S1')).toBe(true);
    expect(engine.sessions().has('S1')).toBe(false);
  });
});
