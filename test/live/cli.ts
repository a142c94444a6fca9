import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { waitFor } from './support.js';

// Runs the built command line (dist/, built by `npm ci` through the prepare
// script) as a user would, and keeps every child so afterEach can kill it.

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/resumescope.js', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(new URL('../../dist/cli/main.js', import.meta.url))) {
    throw new Error('dist/ is missing: run `npx tsc -p tsconfig.build.json` (npm ci does it) before these tests');
  }
}

export interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
  exitCode(): number | string | undefined;
}

const children = new Set<ChildProcess>();

export function run(command: string, args: string[], opts: SpawnOptions = {}): Running {
  const child = spawn(command, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], ...opts, env: { ...process.env, NO_COLOR: '1', ...opts.env } });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  // Writing to a child that is gone must not fail the test run.
  child.stdin?.on('error', () => {});
  let code: number | string | undefined;
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (c, signal) => {
      children.delete(child);
      code = c ?? signal ?? -1;
      resolve(code);
    }),
  );
  return { child, stdout: () => out, stderr: () => err, exited, exitCode: () => code };
}

export function resumescope(args: string[], opts: SpawnOptions = {}): Running {
  return run(process.execPath, [BIN, ...args], opts);
}

/**
 * Stops every child still running (afterEach): SIGTERM first, as a user's stop would be, so the
 * run removes its scratch folder (a SIGKILLed run leaves it in TMPDIR for the next run to reclaim
 * an hour later); SIGKILL if it has not gone within TERM_GRACE_MS.
 */
export async function killAll(): Promise<void> {
  const waits = [...children].map(
    (c) =>
      new Promise<void>((resolve) => {
        if (c.exitCode !== null || c.signalCode !== null) return resolve();
        const hard = setTimeout(() => c.kill('SIGKILL'), TERM_GRACE_MS);
        c.once('exit', () => {
          clearTimeout(hard);
          resolve();
        });
        c.kill('SIGTERM');
      }),
  );
  await Promise.all(waits);
}
const TERM_GRACE_MS = 2000;

/**
 * Whether the child holds `file` open (Linux's /proc): a watcher installs its signal handlers before
 * it opens what it follows, so from then on a signal is its stop, not its death.
 */
export function holdsOpen(r: Running, file: string): boolean {
  const fds = `/proc/${r.child.pid}/fd`;
  try {
    return readdirSync(fds).some((fd) => {
      try {
        return readlinkSync(`${fds}/${fd}`) === file;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

export async function exitWithin(r: Running, ms: number): Promise<number | string> {
  return waitFor(`the process to exit (stdout: ${r.stdout().slice(-300)}; stderr: ${r.stderr().slice(-300)})`, () => r.exitCode(), ms);
}

/** The NDJSON lines printed so far, parsed. */
export function findingsOf(r: Running): { rule: string; severity: string; session: string | null; evidence: { file: string; line: number }[] }[] {
  return r
    .stdout()
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { rule: string; severity: string; session: string | null; evidence: { file: string; line: number }[] });
}
