import { appendFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, exitWithin, killAll } from './cli.js';
import { haveCommands, onPty, plain } from './pty.js';
import { healthyLines, tempDir, violatingLine, waitFor } from './support.js';

// The dashboard end to end on a pseudo-terminal (./pty.ts): what the test writes to
// script's stdin arrives as keys.

const hasScript = haveCommands('script');

beforeAll(() => assertBuilt());

const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(async () => {
  await killAll();
  for (const d of dirs.splice(0)) d.remove();
});

describe.skipIf(!hasScript)('the dashboard on a terminal', () => {
  it('watch: shows a violation appended to the watched file, then quits on q', async () => {
    const d = tempDir();
    dirs.push(d);
    const file = d.file('server.ndjson');
    writeFileSync(file, healthyLines('S1'));
    const w = onPty(['watch', file]);
    await waitFor('the first frame', () => /live/.test(plain(w.stdout())) && /records 3/.test(plain(w.stdout())), 10_000);
    const appendedAt = Date.now();
    appendFileSync(file, violatingLine(100));
    await waitFor('the finding on screen', () => plain(w.stdout()).includes('event-id-without-session'), 5000);
    const latency = Date.now() - appendedAt;
    console.info(`watch (dashboard): appended line to finding on screen in ${latency} ms`);
    expect(latency).toBeLessThan(process.env.CI ? 5000 : 1000);
    w.child.stdin!.write('q');
    expect(await exitWithin(w, 5000)).toBe(0);
  });

  it('tui: shows the findings of a recorded log, then quits on q', async () => {
    const d = tempDir();
    dirs.push(d);
    const file = d.file('recorded.ndjson');
    writeFileSync(file, healthyLines('S1') + violatingLine(100));
    const t = onPty(['tui', file]);
    await waitFor('the findings on screen', () => /recorded/.test(plain(t.stdout())) && plain(t.stdout()).includes('event-id-without-session'), 10_000);
    t.child.stdin!.write('q');
    expect(await exitWithin(t, 5000)).toBe(0);
  });

  it('tui: o on a finding of a .gz log writes its lines to a private temporary file, removed when the dashboard ends', async () => {
    const d = tempDir();
    dirs.push(d);
    const file = d.file('recorded.ndjson.gz');
    writeFileSync(file, gzipSync(healthyLines('S1') + violatingLine(100)));
    const tmp = d.file('tmp');
    mkdirSync(tmp);
    // `true` as the editor: it returns at once, as a viewer the user closed.
    const t = onPty(['tui', file], { TMPDIR: tmp, EDITOR: 'true', VISUAL: '' });
    await waitFor('the findings on screen', () => plain(t.stdout()).includes('event-id-without-session'), 10_000);
    t.child.stdin!.write('o');
    await waitFor('back from the viewer', () => plain(t.stdout()).includes('back from'), 5000);
    const written = readdirSync(tmp);
    expect(written).toEqual([expect.stringMatching(/^resumescope-/)]);
    expect(readdirSync(join(tmp, written[0]!))).toHaveLength(1);
    t.child.stdin!.write('q');
    expect(await exitWithin(t, 5000)).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('watch --exit-after ends the dashboard by itself', async () => {
    const d = tempDir();
    dirs.push(d);
    const file = d.file('server.ndjson');
    writeFileSync(file, healthyLines('S1'));
    const w = onPty(['watch', '--exit-after', '1s', file]);
    expect(await exitWithin(w, 8000)).toBe(0);
    expect(plain(w.stdout())).toMatch(/live/);
  });
});
