import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.js';
import { EVIL, RAW_HOSTILE, writeHostileLogs } from './hostile-logs.js';

// A log line is hostile input wherever it is shown. Logs whose ids, names and
// reasons carry escape sequences, controls and bidi overrides go through every
// command and format: no such character may come out as itself, on stdout or
// stderr, while the values stay readable (escaped as \u001b and so on).

let dir: string;
let logs: string[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-hostile-'));
  logs = writeHostileLogs(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function expectSafe(text: string, what: string): void {
  const at = RAW_HOSTILE.exec(text);
  expect(at === null ? null : JSON.stringify(text.slice(Math.max(0, at.index - 60), at.index + 20)), what).toBeNull();
}

describe('no log value steers a terminal or a page', () => {
  it('the inputs do carry hostile characters (the test can fail)', () => {
    for (const f of logs) expect(RAW_HOSTILE.test(readFileSync(f, 'utf8').replace(/\\u[0-9a-f]{4}/g, (e) => JSON.parse(`"${e}"`) as string)), f).toBe(true);
  });

  for (const format of ['text', 'markdown', 'json', 'sarif', 'junit']) {
    it(`analyze -f ${format}`, async () => {
      const r = await cli('analyze', ...logs, '-f', format, '--fail-on', 'never', '--max-findings', '1000');
      // JUnit is XML, which cannot carry controls even escaped: it drops them.
      if (format !== 'junit') expect(r.out).toContain('\\u001b');
      expectSafe(r.out, 'stdout');
      expectSafe(r.err, 'stderr');
      if (format === 'json' || format === 'sarif') expect(JSON.stringify(JSON.parse(r.out))).toContain(JSON.stringify(EVIL).slice(1, -1));
    });
  }

  it('analyze -f html: no bidi override or control in the page', async () => {
    const r = await cli('analyze', ...logs, '-f', 'html', '--fail-on', 'never');
    expectSafe(r.out.replace(/[\t]/g, ' '), 'html');
  });

  it('analyze --raw quotes the lines escaped', async () => {
    const r = await cli('analyze', ...logs, '--raw', '--fail-on', 'never');
    expect(r.out).toContain('\\u001b');
    expectSafe(r.out, 'stdout');
  });

  it('explain, whatif, query as a table, the rejected lines', async () => {
    for (const args of [
      ['explain', ...logs],
      ['explain', ...logs, '-n', '2'],
      ['whatif', ...logs, '--retention', '1s'],
      ['query', 'SELECT * FROM records', ...logs],
      ['query', 'rejected', ...logs],
      ['query', 'SELECT * FROM records', ...logs, '-f', 'json'],
    ]) {
      const r = await cli(...args);
      expect(r.out.length, args.join(' ')).toBeGreaterThan(100);
      expectSafe(r.out, `${args[0]} ${args.at(-1)} stdout`);
      expectSafe(r.err, `${args[0]} stderr`);
    }
  });

  it('timeline of every session, text and json, and a session not in the log', async () => {
    const sessions = JSON.parse((await cli('query', 'SELECT DISTINCT session FROM records WHERE session IS NOT NULL', ...logs, '-f', 'json')).out) as { session: string }[];
    expect(sessions.length).toBeGreaterThan(3);
    for (const { session } of sessions) {
      for (const format of ['text', 'json']) {
        const r = await cli('timeline', session, ...logs, '-f', format);
        expect(r.code, session).toBe(0);
        expectSafe(r.out, `timeline ${format}`);
        expectSafe(r.err, 'timeline stderr');
      }
    }
    const missing = await cli('timeline', sessions[0]!.session.slice(0, 3), ...logs);
    expect(missing.err).toMatch(/not in the log/);
    expectSafe(missing.err, 'near match');
    // The near matches hold line breaks: escaped, so that the message stays one line and no log value forges a second.
    expect(missing.err.split('\n').find((l) => l.includes('not in the log'))).toMatch(/\(did you mean .+\?\)$/);
    const typed = await cli('timeline', 'nope\nresumescope: forged', ...logs);
    expect(typed.err.split('\n').filter((l) => l.includes('forged'))).toEqual([expect.stringContaining('session nope\\u000aresumescope: forged is not in the log')]);
  });
});
