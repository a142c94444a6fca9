// What-if answers an incident review found wrong or unclear (review rv55): a truncation whose
// position the log never shows sent, the one that stays named, a rescue that needed a priming
// event, a storm whose time moves with its threshold, a refusal blamed for the what-if setting,
// the event.sent behind a retention's verdict, and thresholds that are the detector's own.

import { afterEach, describe, expect, it } from 'vitest';
import type { Workspace } from '../../src/api.js';
import { whatIf, type PolicyChange, type WhatIfReport } from '../../src/whatif/index.js';
import { at, workspaceOf, type LogLine } from '../helpers/logs.js';
import { incident } from './incident.js';

let ws: Workspace | undefined;
afterEach(() => {
  ws?.db.close();
  ws = undefined;
});

async function whatIfOf(lines: LogLine[], change: PolicyChange): Promise<WhatIfReport> {
  ws = await workspaceOf(lines);
  return whatIf(ws.db, { change });
}

const lineNumbers = (refs: { line: number }[]) => refs.map((r) => r.line);

/** The export starts mid-session: event 99 is never shown sent, and a trim names 101 (lines 1-6). */
const midLog: LogLine[] = [
  { ts: at(0), kind: 'stream.opened', session: 'X1', stream: 'g1', via: 'get' },
  { ts: at(1000), kind: 'event.sent', session: 'X1', stream: 'g1', event_id: 100 },
  { ts: at(2000), kind: 'event.sent', session: 'X1', stream: 'g1', event_id: 101 },
  { ts: at(3000), kind: 'stream.closed', session: 'X1', stream: 'g1', reason: 'error' },
  { ts: at(4000), kind: 'buffer.trimmed', session: 'X1', stream: 'g1', oldest_retained: 101 },
  { ts: at(5000), kind: 'upgrade', session: 'X1', last_event_id: 99, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 1, reemitted: 0, first_replayed: 101 },
];

describe('a truncation whose Last-Event-ID the log never shows sent', () => {
  it.each<[string, PolicyChange['retention']]>([
    ['1 ms', { maxAgeMs: 1 }],
    ['120 s', { maxAgeMs: 120_000 }],
    ['1 event', { maxEvents: 1 }],
  ])('stays under a %s retention: the position cannot be placed, so no retention can be said to keep it', async (_, retention) => {
    const r = await whatIfOf(midLog, { retention });
    expect(r.before.by_rule['silent-truncation']).toBe(1);
    expect(r.after.by_rule['silent-truncation']).toBe(1);
    expect(r.disappeared).toEqual([]);
    expect(r.headline[0]).toMatch(/: the silent-truncation finding stays \(it: X1 at 2026-11-09T10:00:05\.000Z resumed event 99, which the log never shows sent: .*cannot be told, so the logged trim stands\)$/);
  });

  it('disappears as before where the log shows the session created and the event sent, 4.5 s before the reconnect', async () => {
    const created: LogLine = { ts: at(0), kind: 'session.created', session: 'X1' };
    const sent: LogLine = { ts: at(500), kind: 'event.sent', session: 'X1', stream: 'g1', event_id: 99 };
    const r = await whatIfOf([created, midLog[0]!, sent, ...midLog.slice(1)], { retention: { maxAgeMs: 120_000 } });
    expect(r.before.by_rule['silent-truncation']).toBe(1);
    expect(r.after.by_rule['silent-truncation'] ?? 0).toBe(0);
    expect(r.disappeared.map((f) => f.rule)).toContain('silent-truncation');
  });
});

/** The incident's short replay (S4) moved first in the log: it is analyze's #1, not the 4th. */
const shortFirst: LogLine[] = [...incident.slice(24), ...incident.slice(0, 24)];

describe('the headline names the truncation that stays', () => {
  it('by session and time, wherever it comes in the log', async () => {
    const r = await whatIfOf(shortFirst, { retention: { maxAgeMs: 120_000 } });
    expect(r.headline[0]).toBe(
      'with 120 s retention: 3 of 4 silent-truncation findings disappear (the other one: S4 at 2026-11-09T10:05:10.000Z replayed too few events: not a retention problem)',
    );
  });

  it('names none where every one disappears', async () => {
    const r = await whatIfOf(incident.slice(0, 24), { retention: { maxAgeMs: 120_000 } });
    expect(r.headline[0]).toBe('with 120 s retention: 3 of 3 silent-truncation findings disappear');
  });
});

/** Call 7's stream p1 carried only a priming event before it broke; a resumption from it brought the response (lines 1-8). */
const primedRescue = (priming: boolean): LogLine[] => [
  { ts: at(0), kind: 'session.created', session: 'S1', principal: 'alice', protocol_version: '2025-11-25' },
  { ts: at(100), kind: 'call', session: 'S1', rpc_id: 7, method: 'tools/call', tool: 'charge', args_hash: 'h1', status: 200 },
  { ts: at(110), kind: 'stream.opened', session: 'S1', stream: 'p1', via: 'post' },
  { ts: at(200), kind: 'event.sent', session: 'S1', stream: 'p1', event_id: 'p1-1', ...(priming && { priming: true }) },
  { ts: at(1000), kind: 'stream.closed', session: 'S1', stream: 'p1', reason: 'error' },
  { ts: at(2000), kind: 'event.sent', session: 'S1', stream: 'p1', event_id: 'p1-2', rpc_kind: 'response', rpc_id: 7, attached: false },
  { ts: at(3000), kind: 'upgrade', session: 'S1', last_event_id: 'p1-1', stream: 'p1', new_stream: 'p2', decision: 'resume', status: 200, replayed: 1, reemitted: 0, first_replayed: 'p1-2' },
  { ts: at(3010), kind: 'stream.opened', session: 'S1', stream: 'p2', via: 'get' },
];

describe('whatif --protocol of a revision without priming events', () => {
  it.each(['2025-03-26', '2025-06-18'] as const)('%s: a rescue from a priming event cannot happen, so the call is lost', async (protocolVersion) => {
    const r = await whatIfOf(primedRescue(true), { protocolVersion });
    const [s] = r.calls!.sessions;
    expect(s).toMatchObject({ session: 'S1', lost: 1, rescued: 1 });
    expect(s!.calls[0]).toMatchObject({ rpc_id: '7', before: 'rescued', after: 'lost' });
    expect(s!.calls[0]!.why).toContain(`${protocolVersion} has no priming events`);
    expect(r.headline[0]).toMatch(new RegExp(`^with protocol ${protocolVersion}: 1 client request would have been lost .*1 rescued today by a resumption`));
  });

  it('keeps the rescue where the position was an ordinary event, which that revision sends too', async () => {
    const r = await whatIfOf(primedRescue(false), { protocolVersion: '2025-03-26' });
    expect(r.calls!.sessions).toEqual([]);
    expect(r.headline[0]).toContain('no client request would have been lost');
  });

  it('keeps the rescue from a priming event under 2025-11-25, which has them', async () => {
    const r = await whatIfOf(primedRescue(true), { protocolVersion: '2025-11-25' });
    expect(r.calls!.sessions).toEqual([]);
  });
});

/** Six POSTs of D1 answered 404 within 5 s (lines 2-7). */
const storm: LogLine[] = [
  { ts: at(0), kind: 'session.created', session: 'D0' },
  ...[0, 1, 2, 3, 4, 5].map((i) => ({ ts: at(1000 + i * 1000), kind: 'call', session: 'D1', rpc_id: i + 1, method: 'tools/list', status: 404 })),
];

describe('a storm whose reported time moves with --storm-count', () => {
  it('is the same storm: it stays, and the headline says it is reported earlier', async () => {
    const r = await whatIfOf(storm, { stormCount: 3 });
    expect(r.before.by_rule['404-storm']).toBe(1);
    expect(r.after.by_rule['404-storm']).toBe(1);
    expect(r.disappeared).toEqual([]);
    expect(r.appeared).toEqual([]);
    expect(r.headline[0]).toBe(
      'with a 404-storm at 3 POSTs in 10 s: the 404-storm finding of D1 stays, reported at 2026-11-09T10:00:03.000Z instead of 2026-11-09T10:00:05.000Z (the detector\'s threshold moved, not the storm)',
    );
  });

  it('is another storm where the two share no line: one goes, one comes', async () => {
    // Two runs of three 404s, 30 s apart: at 5 POSTs neither is a storm, at 3 both are.
    const two: LogLine[] = [0, 1, 2, 30, 31, 32].map((s, i) => ({ ts: at(1000 + s * 1000), kind: 'call', session: 'D1', rpc_id: i + 1, method: 'tools/list', status: 404 }));
    const r = await whatIfOf(two, { stormCount: 3 });
    expect(r.before.by_rule['404-storm'] ?? 0).toBe(0);
    expect(r.appeared).toHaveLength(2);
  });
});

/** A session whose GET stream g1 sent events 1-3 at 1, 2 and 3 s and broke at 4 s (six lines). */
const threeEventsThenBroken = (session: string, principal: string): LogLine[] => [
  { ts: at(0), kind: 'session.created', session, principal },
  { ts: at(10), kind: 'stream.opened', session, stream: 'g1', via: 'get' },
  ...[1, 2, 3].map((id) => ({ ts: at(id * 1000), kind: 'event.sent', session, stream: 'g1', event_id: id })),
  { ts: at(4000), kind: 'stream.closed', session, stream: 'g1', reason: 'error' },
];

/** The server refused S1's resumption from 1 (409), correctly: a trim had taken event 1 (lines 1-7). */
const refused: LogLine[] = [
  ...threeEventsThenBroken('S1', 'alice'),
  { ts: at(80_000), kind: 'buffer.trimmed', session: 'S1', stream: 'g1', oldest_retained: 3 },
  { ts: at(91_000), kind: 'upgrade', session: 'S1', last_event_id: 1, stream: 'g1', new_stream: 'g2', decision: 'reject', status: 409, reason: 'resumption_unavailable', principal: 'alice' },
];

describe('a correct logged refusal under a longer what-if retention', () => {
  it('is a divergence the what-if setting explains, not one that no rule explains', async () => {
    const r = await whatIfOf(refused, { retention: { maxAgeMs: 120_000 } });
    const [d] = r.appeared.filter((f) => f.rule === 'engine-divergence');
    expect(d!.message).toMatch(/\(explained by the what-if change alone: as logged the engine refuses it too; with 120 s retention every check passes\)$/);
    expect(d!.message).not.toContain('no rule explains it');
  });

  it('raises none where the what-if retention refuses it too (near miss: 60 s, the event was 90 s old)', async () => {
    const r = await whatIfOf(refused, { retention: { maxAgeMs: 60_000 } });
    expect(r.appeared).toEqual([]);
    expect(r.flips).toEqual([]);
  });
});

/** S5: events 1-3, nothing trimmed, a complete resume from 1 at 91 s (lines 1-7). */
const complete: LogLine[] = [
  ...threeEventsThenBroken('S5', 'erin'),
  { ts: at(91_000), kind: 'upgrade', session: 'S5', last_event_id: 1, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 2, first_replayed: 2, principal: 'erin' },
];

describe('a flip and a divergence the what-if retention causes', () => {
  it('cite the event.sent that proves the age (line 3)', async () => {
    const r = await whatIfOf(complete, { retention: { maxAgeMs: 60_000 } });
    expect(lineNumbers(r.flips[0]!.evidence)).toEqual([3, 7]);
    expect(lineNumbers(r.appeared.find((f) => f.rule === 'engine-divergence')!.evidence)).toEqual([3, 7]);
  });

  it('cite the position and the event that pushed it out of a count retention (lines 3, 5)', async () => {
    const r = await whatIfOf(complete, { retention: { maxEvents: 2 } });
    expect(lineNumbers(r.flips[0]!.evidence)).toEqual([3, 5, 7]);
  });

  it('cite the logged trim where the logged retention refused (near miss: no event.sent)', async () => {
    const r = await whatIfOf(incident, { retention: { maxAgeMs: 120_000 } });
    expect(lineNumbers(r.flips[0]!.evidence)).toEqual([7, 8]);
  });
});

describe('a detection threshold changed, not the incident', () => {
  /** send_invoice run twice by alice, 36 s apart, a 404 between (lines 1-4). */
  const twice: LogLine[] = [
    { ts: at(0), kind: 'session.created', session: 'A1', principal: 'alice' },
    { ts: at(1000), kind: 'call', session: 'A1', principal: 'alice', rpc_id: 1, method: 'tools/call', tool: 'send_invoice', args_hash: 'h', status: 200 },
    { ts: at(2000), kind: 'call', session: 'A1', principal: 'alice', rpc_id: 2, method: 'tools/list', status: 404 },
    { ts: at(37_000), kind: 'call', session: 'A2', principal: 'alice', rpc_id: 1, method: 'tools/call', tool: 'send_invoice', args_hash: 'h', status: 200 },
  ];

  it('--dup-window: the duplicate is no longer reported, and the calls ran as logged', async () => {
    const r = await whatIfOf(twice, { duplicateCallWindowMs: 10_000 });
    expect(r.before.by_rule['duplicate-tool-call']).toBe(1);
    expect(r.headline[0]).toBe(
      "with a 10 s duplicate-call window: 1 of 1 duplicate-tool-call finding is no longer reported (a detection threshold, not the server's policy: what the log shows happened as logged)",
    );
  });

  it('--storm-count: a storm no longer reported under a higher threshold says so too', async () => {
    const r = await whatIfOf(storm, { stormCount: 7 });
    expect(r.headline[0]).toBe(
      "with a 404-storm at 7 POSTs in 10 s: 1 of 1 404-storm finding is no longer reported (a detection threshold, not the server's policy: what the log shows happened as logged)",
    );
  });

  it('a retention change still says "disappear": it is the server\'s policy', async () => {
    const r = await whatIfOf(incident, { retention: { maxAgeMs: 120_000 } });
    expect(r.headline[0]).toMatch(/^with 120 s retention: 3 of 4 silent-truncation findings disappear/);
  });
});
