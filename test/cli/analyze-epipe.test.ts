import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, exitWithin, killAll, run } from '../live/cli.js';

// QA pass: `resumescope analyze BIG | head` prints a Node stack trace:
//   node:events:502  throw er; // Unhandled 'error' event ... Error: write EPIPE
// (exit 1, or 2 with -o /dev/stdout: "resumescope: EPIPE: broken pipe, write").
// Repro: a log with a few hundred findings (500 KB of report), then
//   resumescope analyze many.ndjson | head -c 10
// `watch` already ends quietly on EPIPE (test/live/watch-cli.test.ts); analyze does not.

beforeAll(() => assertBuilt());

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-qa-epipe-'));
});
afterEach(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** 600 accepted resumes without a session: 600 event-id-without-session findings, a report far larger than a pipe buffer. */
function manyFindings(): string {
  const lines: string[] = [];
  for (let i = 0; i < 600; i++) {
    const ts = new Date(Date.parse('2026-11-09T10:00:00.000Z') + i * 1000).toISOString();
    lines.push(JSON.stringify({ ts, kind: 'upgrade', session: null, last_event_id: String(i), decision: 'resume', status: 200, replayed: 0, new_stream: `g${i}` }));
  }
  const file = join(dir, 'many.ndjson');
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

describe('analyze | head', () => {
  // Was a bug: analyze crashed with an unhandled EPIPE stack trace when its reader closed the pipe.
  it('ends quietly when the reader of its output goes away', async () => {
    // Exactly what a user types; the shell reports analyze's own exit status and stderr.
    const script = `"${process.execPath}" "${BIN}" analyze "${manyFindings()}" | head -c 10 > /dev/null; echo "analyze exit: \${PIPESTATUS[0]}" >&2`;
    const r = run('bash', ['-c', script]);
    expect(await exitWithin(r, 15_000)).toBe(0);
    expect(r.stderr()).not.toMatch(/EPIPE|Unhandled|node:events/);
    expect(r.stderr()).toMatch(/analyze exit: [01]\n/);
  });
});
