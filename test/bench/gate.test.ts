import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The bench as a gate for a nightly job: over a limit it names the run and exits 1; within, 0.
// Behaviour only: the limits here are far either side of any machine's numbers.

const RUN = fileURLToPath(new URL('../../bench/run.js', import.meta.url));

function bench(...limits: string[]) {
  return spawnSync(process.execPath, [RUN, '--shapes', 'uniform', '--lines', '300', '--no-lnav', '--no-floor', ...limits], {
    encoding: 'utf8',
    timeout: 60_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('bench limits', () => {
  it('exits 1 naming each run over --max-x-bare and each shape over --max-linearity', () => {
    const r = bench('--max-x-bare', '0.001', '--max-linearity', '0.001');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/over the limit: uniform at 300 lines took [\d.]+x its bare parse \(limit 0\.001\)/);
    expect(r.stderr).toMatch(/over the limit: uniform at 1,200 lines took/);
    expect(r.stderr).toMatch(/over the limit: uniform: linearity [\d.]+ \(limit 0\.001\)/);
    expect(r.stdout).toContain('scaling between the two sizes'); // the table is still printed
  }, 60_000);

  it('exits 0 within the limits, and refuses a limit that is not a positive number', () => {
    const within = bench('--max-x-bare', '1000000', '--max-linearity', '1000');
    expect(within.status).toBe(0);
    expect(within.stderr).not.toContain('over the limit');
    const bad = bench('--max-linearity', 'fast');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--max-linearity: not a positive number: "fast"');
  }, 60_000);
});
