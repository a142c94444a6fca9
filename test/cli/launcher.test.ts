import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The launcher (bin/resumescope.js) is what a CI step runs. Until the command has said what it found, the
// exit status is 2: a crash while loading used to exit 1 (the "findings" code) with a raw stack, and a
// wait that could never end drained the event loop and exited 0, passing the gate with no report.

const BIN = join(import.meta.dirname, '../../bin/resumescope.js');

function sh(script: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, BIN, NODE: process.execPath } });
}

describe('the launcher', () => {
  it('a crash while loading exits 2 with one line that says what to do', () => {
    // Node loads modules in parallel: 20 open files cannot hold them.
    const r = sh('ulimit -n 20 && "$NODE" "$BIN" --version');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^resumescope: EMFILE: too many open files, open '[^']+' \(the open-file limit is too low for Node to load resumescope: raise it, e\.g\. ulimit -n 1024\)\n$/);
  });

  it('starts under a 256-file limit (the macOS default): ink and react load only to draw the dashboard', () => {
    expect(sh('ulimit -n 256 && "$NODE" "$BIN" --version')).toMatchObject({ status: 0, stderr: '' });
    expect(sh('ulimit -n 256 && "$NODE" "$BIN" analyze samples/writers.ndjson')).toMatchObject({ status: 1, stderr: '' });
  });

  it('near miss: a run that finishes exits with its own code', () => {
    expect(sh('"$NODE" "$BIN" --version').status).toBe(0);
    expect(sh('"$NODE" "$BIN" analyze samples/clean.ndjson').status).toBe(0);
    expect(sh('"$NODE" "$BIN" analyze samples/writers.ndjson').status).toBe(1);
  });

  it('a run whose wait can never end exits 2 and says so', () => {
    // A stand-in for a hang that drains the event loop: a module whose main never settles.
    const r = sh(`d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && cd "$d" && mkdir -p bin dist/cli && cp "$BIN" bin/ && echo 'export const main = () => new Promise(() => {});' > dist/cli/main.js && echo '{"type":"module"}' > package.json && "$NODE" bin/resumescope.js analyze x`);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('resumescope: stopped before it finished: it waited for something that could never come (a bug: please report it with the command line)\n');
  });
});
