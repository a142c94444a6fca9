import { execFileSync } from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, exitWithin, killAll } from './cli.js';
import { haveCommands, onPty, plain } from './pty.js';
import { healthyLines, tempDir, violatingLine, waitFor } from './support.js';

// The dashboard's terminal handling on a pseudo-terminal (./pty.ts): the alternate screen and the scrollback, and keys typed while
// a log loads. A FIFO as the log holds the load open for as long as a test needs:
// nothing here depends on how fast the machine is.

const hasScript = haveCommands('script', 'mkfifo');

beforeAll(() => assertBuilt());

const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(async () => {
  await killAll();
  for (const d of dirs.splice(0)) d.remove();
});

const ENTER = '\x1b[?1049h';
const LEAVE = '\x1b[?1049l';
const ERASE_SCROLLBACK = '\x1b[3J';

function recordedLog() {
  const d = tempDir();
  dirs.push(d);
  const file = d.file('recorded.ndjson');
  writeFileSync(file, healthyLines('S1') + violatingLine(100));
  return { d, file };
}

/** A log that is still being written: the load lasts until end() (a FIFO's writer closing). */
function loadingLog() {
  const d = tempDir();
  dirs.push(d);
  const file = d.file('slow.ndjson');
  execFileSync('mkfifo', [file]);
  const writer = createWriteStream(file);
  writer.write(healthyLines('S1'));
  return { file, end: () => writer.end(violatingLine(100)) };
}

/** tui on these logs, once its dashboard shows. */
async function tuiOpen(...logs: string[]) {
  const t = onPty(['tui', ...logs]);
  await waitFor('the dashboard', () => plain(t.stdout()).includes('tab pane'), 10_000);
  return t;
}

describe.skipIf(!hasScript)('the dashboard keeps the user\'s terminal', () => {
  it('tui: draws on the alternate screen, never erases the scrollback, and leaves it on q', async () => {
    const { file } = recordedLog();
    const t = await tuiOpen(file);
    // Redraws as tall as the terminal: ink clears the screen for each.
    t.child.stdin!.write('\t');
    await waitFor('the sessions pane', () => plain(t.stdout()).includes('[Sessions'), 5000);
    t.child.stdin!.write('q');
    expect(await exitWithin(t, 5000)).toBe(0);
    const out = t.stdout();
    expect(out.startsWith(ENTER)).toBe(true);
    expect(out).not.toContain(ERASE_SCROLLBACK);
    expect(out.lastIndexOf(LEAVE)).toBeGreaterThan(out.lastIndexOf('tab pane'));
    // Nothing is drawn on the user's screen after it is back.
    expect(plain(out.slice(out.lastIndexOf(LEAVE))).trim()).toBe('');
  });

  it("tui: what the load says on stderr (an unusable input) is said on the user's screen, once the alternate one is left", async () => {
    const { d, file } = recordedLog();
    const t = await tuiOpen(file, d.file('missing.ndjson'));
    t.child.stdin!.write('q');
    // An unusable input: 2, as analyze.
    expect(await exitWithin(t, 5000)).toBe(2);
    const out = t.stdout();
    const left = out.lastIndexOf(LEAVE);
    expect(out.slice(left)).toMatch(/missing\.ndjson: unusable/);
    // Not drawn on the alternate screen, where it would vanish.
    expect(out.slice(0, left)).not.toMatch(/unusable/);
  });

  it('tui: SIGTERM restores the terminal and still ends the process as SIGTERM does', async () => {
    const { file } = recordedLog();
    const t = await tuiOpen(file);
    const pid = Number(execFileSync('pgrep', ['-P', String(t.child.pid)]).toString().trim());
    process.kill(pid, 'SIGTERM');
    // script exits with 128 + the signal of a child a signal ended.
    expect(await exitWithin(t, 5000)).toBe(128 + 15);
    const out = t.stdout();
    expect(out.lastIndexOf(LEAVE)).toBeGreaterThan(out.lastIndexOf('tab pane'));
    expect(out).not.toContain(ERASE_SCROLLBACK);
  });

  it('watch: the same alternate screen, left on q', async () => {
    const d = tempDir();
    dirs.push(d);
    const file = d.file('server.ndjson');
    writeFileSync(file, healthyLines('S1'));
    const w = onPty(['watch', file]);
    await waitFor('the dashboard', () => /records 3/.test(plain(w.stdout())), 10_000);
    w.child.stdin!.write('q');
    expect(await exitWithin(w, 5000)).toBe(0);
    const out = w.stdout();
    expect(out.startsWith(ENTER)).toBe(true);
    expect(out).not.toContain(ERASE_SCROLLBACK);
    expect(out.lastIndexOf(LEAVE)).toBeGreaterThan(out.lastIndexOf('records 3'));
  });
});

describe.skipIf(!hasScript)('keys typed while the log loads', () => {
  /** tui on a log still being written, once its loading frame shows. */
  const tuiLoading = async () => {
    const log = loadingLog();
    const t = onPty(['tui', log.file]);
    await waitFor('the loading frame', () => /loading \d+ lines/.test(plain(t.stdout())), 10_000);
    return { log, t };
  };

  it('q quits during the load, at once, with status 0, and the dashboard never opens', async () => {
    const { t } = await tuiLoading();
    t.child.stdin!.write('q');
    expect(await exitWithin(t, 5000)).toBe(0);
    expect(plain(t.stdout())).not.toContain('tab pane');
    expect(t.stdout()).toContain(LEAVE);
  });

  it('ctrl+c quits during the load as an interrupt (130)', async () => {
    const { t } = await tuiLoading();
    t.child.stdin!.write('\x03');
    expect(await exitWithin(t, 5000)).toBe(130);
    expect(t.stdout()).toContain(LEAVE);
  });

  it('other keys (PgDn, 2, enter) are neither echoed nor applied once the dashboard opens', async () => {
    const { log, t } = await tuiLoading();
    t.child.stdin!.write('\x1b[6~2\r');
    // The frame's answer to a key it drops: the keys were read by the loading frame, not left for the dashboard.
    await waitFor('the keys read', () => plain(t.stdout()).includes('keys work once the dashboard opens'), 5000);
    log.end();
    await waitFor('the dashboard', () => plain(t.stdout()).includes('tab pane'), 10_000);
    const out = plain(t.stdout());
    // Echoed, PgDn would show as ^[[6~ (the terminal's echoctl).
    expect(out).not.toContain('^[[6~');
    // The findings pane, as it opens: not the sessions pane (2), nor a session (enter).
    expect(out.slice(out.lastIndexOf('resumescope'))).toContain('[Findings');
    t.child.stdin!.write('q');
    expect(await exitWithin(t, 5000)).toBe(0);
  });
});
