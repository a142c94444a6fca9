import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { WhatIfReport } from '../../src/whatif/index.js';
import { cli } from '../cli/run-cli.js';
import { at, writeLog, type LogLine } from '../helpers/logs.js';

// `resumescope whatif --protocol REVISION LOGS`: the same output style as the other
// questions, plus the calls a broken stream would have lost.

const dir = mkdtempSync(join(tmpdir(), 'resumescope-whatif-protocol-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const logFile = (name: string, lines: LogLine[]): string => writeLog(join(dir, name), lines);
const run = (...args: string[]) => cli('whatif', ...args);

// The 2025-11-25 polling pattern: priming event, poll close, the tool result stored for replay, the client resumes.
const polled = logFile('polled.ndjson', [
  { ts: at(0), kind: 'session.created', session: 'S1', protocol_version: '2025-11-25' },
  { ts: at(100), kind: 'stream.opened', session: 'S1', stream: 'p1', via: 'post' },
  { ts: at(100), kind: 'call', session: 'S1', rpc_id: 7, method: 'tools/call', tool: 'charge', status: 200 },
  { ts: at(101), kind: 'event.sent', session: 'S1', stream: 'p1', event_id: 'e1', priming: true },
  { ts: at(150), kind: 'stream.closed', session: 'S1', stream: 'p1', reason: 'poll', retry_ms: 500 },
  { ts: at(400), kind: 'event.sent', session: 'S1', stream: 'p1', event_id: 'e2', rpc_kind: 'response', rpc_id: 7, attached: false },
  { ts: at(700), kind: 'upgrade', session: 'S1', last_event_id: 'e1', stream: 'p1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 1, first_replayed: 'e2' },
]);

describe('resumescope whatif --protocol', () => {
  it('answers which calls would have been lost or run twice, headline first, and exits 0', async () => {
    const { code, out } = await run(polled, '--protocol', '2026-07-28');
    expect(code).toBe(0);
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^with protocol 2026-07-28: 1 client request would have been lost .*1 tool call would run twice unless the tool is idempotent$/);
    expect(out).toContain('reconnect decisions that flip (engine as logged → under the change) (1):\n  S1 at ');
    expect(out).toContain(': resume 200 → reject 405 (the server logged resume 200)');
    expect(out).toContain('client requests whose response stream broke (as logged → with protocol 2026-07-28) (1):');
    expect(out).toContain(`        ${polled}:3, 5, 6, 7\n`);
  });

  it('writes the calls in the json shape beside the other what-if keys', async () => {
    const { code, out } = await run(polled, '--protocol', '2026-07-28', '-f', 'json');
    expect(code).toBe(0);
    const report = JSON.parse(out) as WhatIfReport;
    expect(Object.keys(report).sort()).toEqual(['after', 'appeared', 'before', 'calls', 'disappeared', 'flips', 'headline', 'policy', 'rejected_lines', 'version']);
    expect(report.policy.protocolVersion).toBe('2026-07-28');
    expect(report.calls!.sessions.map((s) => [s.session, s.lost, s.reissued, s.run_twice, s.rescued])).toEqual([['S1', 1, 1, 1, 1]]);
  });

  it('combines with another change, naming both', async () => {
    const { out } = await run(polled, '--protocol', '2026-07-28', '--fence-grace', '10s');
    expect(out.split('\n')[0]).toContain('with a 10 s fence grace and protocol 2026-07-28: 1 client request would have been lost');
  });

  it.each(['2027-01-01', 'stateless', ''])('refuses the unknown revision "%s" with a usage error listing the known ones (exit 2)', async (value) => {
    const { code, out, err } = await run(polled, '--protocol', value);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(`--protocol: unknown revision "${value}": expected one of 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28`);
  });

  it('a revision with resumption and priming events leaves the rescued call rescued: nothing lost', async () => {
    const { out } = await run(polled, '--protocol', '2025-11-25');
    expect(out.split('\n')[0]).toBe('with protocol 2025-11-25: no client request would have been lost: 1 response whose stream broke was brought by a resumption, which that revision keeps');
  });

  it('a revision with resumption but no priming events loses it: the rescue presented the priming event', async () => {
    const { out } = await run(polled, '--protocol', '2025-06-18');
    expect(out.split('\n')[0]).toBe('with protocol 2025-06-18: 1 client request would have been lost (its response stream broke before the response; 1 rescued today by a resumption)');
  });
});
