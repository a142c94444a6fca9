import { afterEach, describe, expect, it } from 'vitest';
import type { Workspace } from '../../src/api.js';
import { whatIf, type WhatIfOptions } from '../../src/whatif/index.js';
import { at, workspaceOf, type LogLine } from '../helpers/logs.js';
import { incident, keptAMinute } from './incident.js';

let ws: Workspace | undefined;
afterEach(() => {
  ws?.db.close();
  ws = undefined;
});

async function whatIfOf(lines: LogLine[], opts: WhatIfOptions) {
  ws = await workspaceOf(lines);
  return whatIf(ws.db, opts);
}

const sessionsOf = (findings: { session: string | null }[]) => findings.map((f) => f.session);

describe('whatIf', () => {
  it('makes the truncations a 30 s retention caused disappear under 120 s, and keeps the short replay', async () => {
    const r = await whatIfOf(incident, { change: { retention: { maxAgeMs: 120_000 } } });
    expect(r.before.by_rule['silent-truncation']).toBe(4);
    expect(r.after.by_rule['silent-truncation']).toBe(1);
    const gone = r.disappeared.filter((f) => f.rule === 'silent-truncation');
    expect(sessionsOf(gone)).toEqual(['S1', 'S2', 'S3']);
    expect(gone.map((f) => f.at)).toEqual([at(60_000), at(160_000), at(260_000)]);
    expect(r.appeared.filter((f) => f.rule === 'silent-truncation')).toEqual([]);
    expect(r.headline[0]).toBe(
      'with 120 s retention: 3 of 4 silent-truncation findings disappear (the other one: S4 at 2026-11-09T10:05:10.000Z replayed too few events: not a retention problem)',
    );
  });

  it('names a retention that is no whole number of seconds as it was asked, not rounded', async () => {
    // event 1 was 59 s old at each reconnect: 59,250 ms keeps it, and the headline must not say "59.3 s"
    const r = await whatIfOf(incident, { change: { retention: { maxAgeMs: 59_250 } } });
    expect(r.headline[0]).toMatch(/^with 59250 ms retention: 3 of 4 silent-truncation findings disappear/);
    expect(r.flips[0]!.why).toContain('with 59250 ms retention every check passes');
  });

  it('turns the engine from reject to resume where the longer retention keeps the position', async () => {
    const r = await whatIfOf(incident, { change: { retention: { maxAgeMs: 120_000 } } });
    expect(r.flips.map((f) => [f.session, f.at, f.last_event_id, f.before.decision, f.after.decision])).toEqual([
      ['S1', at(60_000), '1', 'reject', 'resume'],
      ['S2', at(160_000), '1', 'reject', 'resume'],
      ['S3', at(260_000), '1', 'reject', 'resume'],
    ]);
    const [first] = r.flips;
    expect(first!.before).toMatchObject({ status: 409, reason: 'resumption_unavailable', checks: ['position_evicted'] });
    expect(first!.after).toMatchObject({ status: 200, reason: 'stream_resumption', checks: [] });
    expect(first!.logged).toEqual({ decision: 'resume', status: 200 });
    expect(first!.why).toBe('as logged: event 1 no longer retained (sent 59 s before the reconnect); with 120 s retention every check passes');
    // the trim that took event 1, then the upgrade
    expect(first!.evidence).toEqual([
      { file: 'server.ndjson', line: 7 },
      { file: 'server.ndjson', line: 8 },
    ]);
    // the divergences the server's resumes of evicted positions raised go with them
    expect(sessionsOf(r.disappeared.filter((f) => f.rule === 'engine-divergence'))).toEqual(['S1', 'S2', 'S3']);
  });

  it('keeps the truncations under a retention as short as the logged one', async () => {
    const r = await whatIfOf(incident, { change: { retention: { maxAgeMs: 30_000 } } });
    expect(r.after.by_rule['silent-truncation']).toBe(4);
    expect(r.disappeared).toEqual([]);
    expect(r.flips).toEqual([]);
  });

  it('flips a resume to a reject, and a truncation appears, when retention is shortened', async () => {
    const r = await whatIfOf(keptAMinute('S5', 0), { change: { retention: { maxAgeMs: 30_000 } } });
    expect(r.before.by_rule).toEqual({});
    expect(r.flips).toHaveLength(1);
    expect(r.flips[0]).toMatchObject({
      session: 'S5',
      last_event_id: '1',
      before: { decision: 'resume', status: 200 },
      after: { decision: 'reject', status: 409, checks: ['position_evicted'] },
      why: 'with 30 s retention: event 1 no longer retained (sent 60 s before the reconnect)',
    });
    expect(sessionsOf(r.appeared.filter((f) => f.rule === 'silent-truncation'))).toEqual(['S5']);
    expect(r.headline).toContain('with 30 s retention: 1 reconnect decision flips (1 resume → reject)');
  });

  it('answers with a signalled reset instead of a 409 under --on-unresumable reset', async () => {
    const r = await whatIfOf(keptAMinute('S5', 0), { change: { retention: { maxAgeMs: 30_000 }, unresumable: 'reset' } });
    expect(r.flips[0]).toMatchObject({ before: { decision: 'resume' }, after: { decision: 'fresh', status: 200, reason: 'resumption_unavailable' } });
    expect(r.policy.unresumable).toBe('reset');
  });

  it('counts a short replay as the trim\'s doing from the counter alone, only when it replayed all the trim left', async () => {
    const trimmedThenResumed = (id: string, offsetMs: number, replayed: number): LogLine[] => {
      const t = (ms: number) => at(offsetMs + ms);
      return [
        { ts: t(0), kind: 'session.created', session: id },
        { ts: t(10), kind: 'stream.opened', session: id, stream: 'g1', via: 'get' },
        ...[1, 2, 3, 4].map((n) => ({ ts: t(n * 1000), kind: 'event.sent', session: id, stream: 'g1', event_id: n })),
        { ts: t(5000), kind: 'stream.closed', session: id, stream: 'g1' },
        { ts: t(33_000), kind: 'buffer.trimmed', session: id, stream: 'g1', oldest_retained: 3 },
        { ts: t(40_000), kind: 'upgrade', session: id, stream: 'g1', new_stream: 'g2', last_event_id: 1, decision: 'resume', status: 200, replayed },
      ];
    };
    // After 1: events 2, 3, 4; the trim left 3 and 4.
    const r = await whatIfOf([...trimmedThenResumed('S6', 0, 2), ...trimmedThenResumed('S7', 100_000, 1)], {
      change: { retention: { maxAgeMs: 120_000 } },
    });
    expect(r.before.by_rule['silent-truncation']).toBe(2);
    expect(sessionsOf(r.disappeared.filter((f) => f.rule === 'silent-truncation'))).toEqual(['S6']);
    expect(r.headline[0]).toBe(
      'with 120 s retention: 1 of 2 silent-truncation findings disappears (the other one: S7 at 2026-11-09T10:02:20.000Z replayed too few events: not a retention problem)',
    );
  });

  it('says nothing changes when nothing does', async () => {
    const r = await whatIfOf(keptAMinute('S5', 0), { change: { retention: { maxAgeMs: 120_000 } } });
    expect(r.headline).toEqual(['with 120 s retention: no finding and no reconnect decision changes']);
    expect(r.before.by_rule).toEqual(r.after.by_rule);
  });
});
