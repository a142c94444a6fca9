import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { WhatIfReport } from '../../src/whatif/index.js';
import { cli } from '../cli/run-cli.js';
import { writeLog, type LogLine } from '../helpers/logs.js';
import { incident } from './incident.js';

const dir = mkdtempSync(join(tmpdir(), 'resumescope-whatif-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const logFile = (name: string, lines: LogLine[]): string => writeLog(join(dir, name), lines);
const run = (...args: string[]) => cli('whatif', ...args);

const incidentLog = logFile('incident.ndjson', incident);

describe('resumescope whatif', () => {
  it('prints the headline first, then the findings that disappear with their lines, and exits 0', async () => {
    const { code, out } = await run(incidentLog, '--retention', '120s');
    expect(code).toBe(0);
    const lines = out.split('\n');
    expect(lines[0]).toBe('with 120 s retention: 3 of 4 silent-truncation findings disappear (the other one: S4 at 2026-11-09T10:05:10.000Z replayed too few events: not a retention problem)');
    expect(out).toMatch(/findings by rule +before +after\n {2}silent-truncation +4 +1\n/);
    expect(out).toContain('findings that disappear (6):');
    expect(out).toContain('  error silent-truncation S1 at 2026-11-09T10:01:00.000Z');
    expect(out).toContain('reconnect decisions that flip (engine as logged → under the change) (3):');
    expect(out).toContain(`  S1 at 2026-11-09T10:01:00.000Z, Last-Event-ID 1: reject 409 → resume 200 (the server logged resume 200)`);
    expect(out).toContain(`      ${incidentLog}:7, 8`);
  });

  it('writes the json shape: policy, counts per rule before and after, disappeared, appeared, flips', async () => {
    const { code, out } = await run(incidentLog, '--retention', '120s', '--fence-grace', '10s', '--format', 'json');
    expect(code).toBe(0);
    const report = JSON.parse(out) as WhatIfReport;
    expect(Object.keys(report).sort()).toEqual(['after', 'appeared', 'before', 'disappeared', 'flips', 'headline', 'policy', 'rejected_lines', 'version']);
    expect(report.version).toBe(1);
    expect(report.policy).toEqual({
      retention: { maxAgeMs: 120_000 },
      fenceGraceMs: 10_000,
      unresumable: 'as-logged',
      stormCount: 5,
      stormWindowMs: 10_000,
      duplicateCallWindowMs: 60_000,
    });
    expect(report.before.by_rule['silent-truncation']).toBe(4);
    expect(report.after.by_rule['silent-truncation']).toBe(1);
    const [gone] = report.disappeared;
    expect(Object.keys(gone!).sort()).toEqual(['at', 'evidence', 'message', 'rule', 'session', 'severity']);
    expect(gone!.evidence[0]).toEqual({ file: incidentLog, line: expect.any(Number) });
    expect(report.appeared).toEqual([]);
    expect(Object.keys(report.flips[0]!).sort()).toEqual(['after', 'at', 'before', 'evidence', 'last_event_id', 'logged', 'session', 'why']);
    expect(report.headline[0]).toContain('with 120 s retention and a 10 s fence grace: 3 of 4 silent-truncation findings disappear');
  });

  it('counts retention in events too', async () => {
    const { out } = await run(incidentLog, '--retention-events', '5', '--format', 'json');
    const report = JSON.parse(out) as WhatIfReport;
    expect(report.policy.retention).toEqual({ maxEvents: 5 });
    expect(report.after.by_rule['silent-truncation']).toBe(1);
  });

  it('exits 2 when an input is unusable, after reporting on the others', async () => {
    const broken = logFile('broken.ndjson', ['not json at all']);
    const { code, out, err } = await run(incidentLog, broken, '--retention', '120s');
    expect(code).toBe(2);
    expect(err).toContain('broken.ndjson: unusable');
    // The report says it first, as analyze's text does, then answers for the others.
    expect(out.split('\n')[0]).toMatch(/^UNUSABLE INPUTS: 1 input was unusable/);
    expect(out).toContain('\n\nwith 120 s retention: 3 of 4 silent-truncation findings disappear');
  });

  it('exits 2 with a usage message when nothing is to change, or a duration does not parse', async () => {
    const none = await run(incidentLog);
    expect(none.code).toBe(2);
    expect(none.err).toContain('say what to change, e.g. --retention 120s');
    const bad = await run(incidentLog, '--retention', 'two minutes');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--retention: invalid duration "two minutes"');
  });

  it('does not contradict itself when a fence grace excuses 409s that no engine decision flips', async () => {
    // A half-open GET stays registered 8.6 s past a 409: with a 30 s grace the
    // refusal is the other correct choice, while the engine fences and accepts either way.
    const log = 'test/whatif/half-open-409.ndjson';
    const { code, out } = await run(log, '--fence-grace', '30s', '--format', 'json');
    expect(code).toBe(0);
    const report = JSON.parse(out) as WhatIfReport;
    // The stale writer the 409 waited for is excused by the same grace (rules.md v2 credits the minted stream to S-NEW).
    expect(report.disappeared.map((f) => f.rule).sort()).toEqual(['engine-divergence', 'stale-writer-blocks-reconnect']);
    expect(report.flips).toEqual([]);
    const flipLine = report.headline.find((h) => h.includes('reconnect decision'))!;
    expect(flipLine).toContain('no reconnect decision flips (the engine decides each reconnect as before; the 1 engine-divergence finding disappears because');
    expect(flipLine).toContain('within the fence grace');
    // A grace too short to excuse it changes nothing, and says nothing extra.
    const short = await run(log, '--fence-grace', '2s');
    expect(short.out.split('\n')[0]).toBe('with a 2 s fence grace: no finding and no reconnect decision changes');
  });

  it('says one rule for durations: bare digits are refused, and the message reads both ways without claiming one', async () => {
    const bare = await run(incidentLog, '--retention', '120000');
    expect(bare.code).toBe(2);
    expect(bare.err).toContain('--retention: "120000" has no unit; give a number with a unit ms, s, m or h');
    expect(bare.err).toContain('120000ms is 2m, 120000s is 33.3h');
    const banana = await run(incidentLog, '--retention', 'banana');
    expect(banana.code).toBe(2);
    expect(banana.err).toContain('expected a number with a unit ms, s, m or h');
    // Neither message claims that bare digits mean milliseconds: they are refused.
    expect(banana.err + bare.err).not.toMatch(/expected milliseconds|bare digits/);
  });
});
