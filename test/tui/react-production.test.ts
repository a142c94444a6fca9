import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// React's development build records a performance measure for every render and Node keeps them
// all: `watch`'s dashboard grew by 20 MB a second while it tailed a log. The launcher must load
// the production build, whatever NODE_ENV the user's shell has.

const BIN = fileURLToPath(new URL('../../bin/resumescope.js', import.meta.url));
const PROBE = fileURLToPath(new URL('./probes/render-measures.mjs', import.meta.url));

describe('the dashboard draws with React', () => {
  it.each([undefined, 'development'])('in its production build, which keeps no measure per frame (NODE_ENV %s)', (nodeEnv) => {
    const env: NodeJS.ProcessEnv = { ...process.env, RESUMESCOPE_BIN: BIN };
    if (nodeEnv === undefined) delete env.NODE_ENV;
    else env.NODE_ENV = nodeEnv;
    const run = spawnSync(process.execPath, [PROBE], { env, encoding: 'utf8', timeout: 30_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stderr.trim().split('\n').at(-1)!)).toEqual({ measures: 0 });
  });
});
