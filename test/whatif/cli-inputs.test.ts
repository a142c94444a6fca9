import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { WhatIfReport } from '../../src/whatif/index.js';
import { cli } from '../cli/run-cli.js';
import { at, logText, writeLog } from '../helpers/logs.js';
import { incident } from './incident.js';

// whatif's "before" is analyze's report of the same logs with the same settings: the
// settings that say how the world was (not questions) are taken as analyze takes them.

const dir = mkdtempSync(join(tmpdir(), 'resumescope-whatif-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const multiNode = new URL('../../samples/multi-node', import.meta.url).pathname;

async function byRule(command: 'analyze' | 'whatif', ...args: string[]): Promise<Record<string, number>> {
  const { out } = await cli(command, multiNode, ...args, '--format', 'json');
  const report = JSON.parse(out) as WhatIfReport & { summary: { by_rule: Record<string, number> } };
  return command === 'analyze' ? report.summary.by_rule : report.before.by_rule;
}

describe('whatif takes the world-as-logged settings analyze takes', () => {
  it('--shared-session-store: its before is analyze --shared-session-store', async () => {
    const analyzed = await byRule('analyze', '--shared-session-store');
    expect(await byRule('whatif', '--shared-session-store', '--fence-grace', '1s')).toEqual(analyzed);
    // and it is no question: both worlds take it
    const { out } = await cli('whatif', multiNode, '--shared-session-store', '--fence-grace', '1s', '--format', 'json');
    expect((JSON.parse(out) as WhatIfReport).after.by_rule['silent-fork'] ?? 0).toBe(0);
  });

  it('without it, its before is analyze without it (near miss: the counts differ)', async () => {
    const analyzed = await byRule('analyze');
    expect(await byRule('whatif', '--fence-grace', '1s')).toEqual(analyzed);
    expect(analyzed).not.toEqual(await byRule('analyze', '--shared-session-store'));
  });

  it('--orphan-window is taken too: a request stranded 3 s before the log ends is no finding in either world', async () => {
    // O1's server request r1 was pending when its stream broke at 2 s; the log ends at 5 s.
    const log = writeLog(join(dir, 'orphan.ndjson'), [
      { ts: at(0), kind: 'session.created', session: 'O1', principal: 'alice' },
      { ts: at(10), kind: 'stream.opened', session: 'O1', stream: 'g1', via: 'get' },
      { ts: at(1000), kind: 'event.sent', session: 'O1', stream: 'g1', event_id: 1, rpc_kind: 'request', rpc_id: 'r1', method: 'sampling/createMessage' },
      { ts: at(1000), kind: 'request.sent', session: 'O1', stream: 'g1', request_id: 'r1', method: 'sampling/createMessage', event_id: 1 },
      { ts: at(2000), kind: 'stream.closed', session: 'O1', stream: 'g1', reason: 'error' },
      { ts: at(5000), kind: 'event.sent', session: 'O1', stream: 'g1', event_id: 2, rpc_kind: 'notification', method: 'notifications/progress', attached: false },
    ]);
    const before = async (...args: string[]) => (JSON.parse((await cli('whatif', log, ...args, '--fence-grace', '1s', '-f', 'json')).out) as WhatIfReport).before.by_rule;
    expect(await before('--orphan-window', '30s')).toEqual({});
    // near miss: a window shorter than the 3 s leaves it a finding
    expect(await before('--orphan-window', '2s')).toEqual({ 'orphaned-request': 1 });
  });

  it('is no question on its own: whatif still asks what to change', async () => {
    const { code, err } = await cli('whatif', multiNode, '--shared-session-store');
    expect(code).toBe(2);
    expect(err).toContain('whatif: say what to change');
  });
});

/** An incident log with two lines that are no records (after its 31 lines). */
const withBad = () => {
  const text = logText(incident);
  const path = join(dir, 'withbad.ndjson');
  writeFileSync(path, `${text}{bad json\n{"ts":"x","kind":"upgrade"}\n`);
  return path;
};

describe('whatif, explain and timeline say unusable inputs and rejected lines, as analyze does', () => {
  const missing = join(dir, 'nonexist.ndjson');

  it('whatif text: an unusable input first, and the rejected lines last', async () => {
    const { code, out } = await cli('whatif', withBad(), missing, '--retention', '120s');
    expect(code).toBe(2);
    expect(out.split('\n')[0]).toBe('UNUSABLE INPUTS: 1 input was unusable: the gate failed (exit 2), whatever the findings; this report covers the other inputs only');
    expect(out).toContain(`nonexist.ndjson: cannot read (ENOENT`);
    expect(out.trimEnd().split('\n').at(-1)).toBe('2 rejected lines could not be read as records; see which and why with `resumescope query rejected` on the same logs (or --db FILE).');
  });

  it('whatif json: rejected_lines always, unusable_inputs when one was', async () => {
    const bad = JSON.parse((await cli('whatif', withBad(), missing, '--retention', '120s', '-f', 'json')).out) as WhatIfReport;
    expect(bad.rejected_lines).toBe(2);
    expect(bad.unusable_inputs).toEqual([{ name: missing, reason: expect.stringContaining('cannot read (ENOENT') as unknown as string }]);
    // near miss: a clean input says 0 and names none
    const clean = JSON.parse((await cli('whatif', multiNode, '--fence-grace', '1s', '-f', 'json')).out) as WhatIfReport;
    expect(clean.rejected_lines).toBe(0);
    expect(clean).not.toHaveProperty('unusable_inputs');
    const { out } = await cli('whatif', multiNode, '--fence-grace', '1s');
    expect(out).not.toMatch(/UNUSABLE|rejected line/);
  });

  it('explain and timeline text say them too', async () => {
    for (const args of [['explain', withBad(), missing], ['timeline', 'S1', withBad(), missing]]) {
      const { code, out } = await cli(...args);
      expect(code).toBe(2);
      expect(out.split('\n')[0]).toMatch(/^UNUSABLE INPUTS: 1 input was unusable/);
      expect(out.trimEnd().split('\n').at(-1)).toMatch(/^2 rejected lines could not be read as records/);
    }
  });

  it('explain and timeline of a clean input say neither (near miss)', async () => {
    const clean = join(dir, 'clean.ndjson');
    writeFileSync(clean, logText(incident));
    for (const args of [['explain', clean], ['timeline', 'S1', clean]]) {
      const { code, out } = await cli(...args);
      expect(code).toBe(0);
      expect(out).not.toMatch(/UNUSABLE|rejected line/);
    }
  });
});
