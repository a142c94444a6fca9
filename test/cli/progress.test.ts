import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { progressOn } from '../../src/cli/progress-line.js';
import { waitFor } from '../helpers/wait.js';

// Long runs show progress on stderr when stderr is a terminal, whatever stdout
// is; nothing when it is not, or with --quiet. Redraws are throttled.

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { isTTY, writes, write: (s: string) => void writes.push(s) };
}

describe('progress line', () => {
  it('on a terminal: redraws at most every interval, names the stage, ends with one summary line', () => {
    const stream = fakeStream(true);
    let t = 0;
    const p = progressOn(stream, { intervalMs: 200, now: () => t });
    p.listener!({ type: 'stage', stage: 'read' });
    for (let i = 1; i <= 10; i++) {
      t += 50;
      p.listener!({ type: 'lines', source: 'a.ndjson', lines: i * 1000 });
    }
    // 500 ms of batches every 50 ms: the stage draw, then one per 200 ms.
    const draws = stream.writes.length;
    expect(draws).toBeGreaterThanOrEqual(3);
    expect(draws).toBeLessThanOrEqual(4);
    expect(stream.writes.at(-1)).toMatch(/^\r\x1b\[2Kresumescope: reading a\.ndjson: [\d,]+ lines \([\d,]+ lines\/s/);
    p.listener!({ type: 'stage', stage: 'detect' });
    expect(stream.writes.at(-1)).toMatch(/running rules: 10,000 lines read \(0.5 s\)$/);
    t += 500;
    p.finish('3 finding(s)');
    const summary = stream.writes.slice(draws + 1).join('');
    expect(summary).toBe('\r\x1b[2Kresumescope: 10,000 lines in 1.0 s (10,000 lines/s; read 0.5 s, detect 0.5 s); 3 finding(s)\n');
  });

  it('sums the lines of several sources', () => {
    const stream = fakeStream(true);
    let t = 0;
    const p = progressOn(stream, { intervalMs: 0, now: () => (t += 10) });
    p.listener!({ type: 'lines', source: 'a', lines: 500 });
    p.listener!({ type: 'lines', source: 'b', lines: 700 });
    expect(stream.writes.at(-1)).toMatch(/1,200 lines/);
  });

  it('a file name cannot move the cursor: control characters are escaped', () => {
    const stream = fakeStream(true);
    const p = progressOn(stream, { intervalMs: 0 });
    p.listener!({ type: 'lines', source: 'evil\x1b[2J\rname', lines: 1 });
    expect(stream.writes.at(-1)).toContain('evil\\u001b[2J\\u000dname');
  });

  it('fits the terminal: a line that wrapped would leave its first row behind at every redraw', () => {
    for (const columns of [40, 60, 80, 120, 160]) {
      const stream = { ...fakeStream(true), columns };
      let t = 0;
      const p = progressOn(stream, { intervalMs: 0, now: () => (t += 250) });
      const name = '/var/log/exports/2026-12-07/production-cluster-eu-west-1/node-a/mcp-server.ndjson';
      for (let i = 1; i <= 3; i++) p.listener!({ type: 'lines', source: name, lines: i * 1_000_000 });
      p.listener!({ type: 'stage', stage: 'detect' });
      for (const w of stream.writes) {
        const line = w.replace(/^\r\x1b\[2K/, '');
        expect(line.length, `${columns}: ${line}`).toBeLessThan(columns);
      }
      const reading = stream.writes[1]!.replace(/^\r\x1b\[2K/, '');
      // The name is cut in its middle, keeping its start and its own name's end while there is room.
      if (columns === 80) expect(reading).toMatch(/^resumescope: reading …[\w-]*server\.ndjson: 2,000,000 lines/);
      if (columns === 160) expect(reading).toContain(name);
    }
  });

  it('TERM=dumb: no escape sequence, the line is blanked with spaces', () => {
    const stream = fakeStream(true);
    const p = progressOn(stream, { intervalMs: 0, dumb: true });
    p.listener!({ type: 'lines', source: 'a.ndjson', lines: 10 });
    p.listener!({ type: 'lines', source: 'a.ndjson', lines: 20 });
    p.finish();
    expect(stream.writes.join('')).not.toContain('\x1b');
    expect(stream.writes[1]).toMatch(/^\r {20,}\rresumescope: reading a\.ndjson: 20 lines/);
    expect(stream.writes.at(-1)).toMatch(/^resumescope: 20 lines in/);
  });

  it('a stage that tells nothing until it ends still moves the elapsed time on, and stops at the summary', async () => {
    const stream = fakeStream(true);
    let t = 0;
    const p = progressOn(stream, { intervalMs: 0, tickMs: 10, now: () => (t += 100) });
    p.listener!({ type: 'lines', source: 'a.ndjson', lines: 5 });
    const read = stream.writes.length;
    await new Promise((r) => setTimeout(r, 60));
    // Nothing ticks while lines are read: each batch draws.
    expect(stream.writes.length).toBe(read);
    p.listener!({ type: 'stage', stage: 'derive' });
    const ticks = await waitFor('two ticks', () => stream.writes.length >= read + 3 && stream.writes.slice(read + 1), 2000);
    expect(new Set(ticks).size).toBe(ticks.length); // each shows a later time
    expect(ticks.at(-1)).toMatch(/rebuilding sessions: 5 lines read \([\d.]+ s\)$/);
    p.finish();
    const after = stream.writes.length;
    await new Promise((r) => setTimeout(r, 50));
    expect(stream.writes.length).toBe(after);
  });

  it('not a terminal: nothing at all, and no listener to call', () => {
    const stream = fakeStream(false);
    const p = progressOn(stream);
    expect(p.listener).toBeUndefined();
    p.finish('x');
    expect(stream.writes).toEqual([]);
  });

  it('--quiet: nothing even on a terminal', () => {
    const stream = fakeStream(true);
    const p = progressOn(stream, { quiet: true });
    expect(p.listener).toBeUndefined();
    p.finish();
    expect(stream.writes).toEqual([]);
  });
});

describe('analyze and ingest show it', () => {
  const sample = 'samples/clean.ndjson';
  async function run(isTTY: boolean, ...args: string[]) {
    const errStream = fakeStream(isTTY);
    let out = '';
    let err = '';
    const code = await main(['node', 'resumescope', ...args], { out: (s) => void (out += s), err: (s) => void (err += s), isTty: false, errStream });
    return { code, out, err, progress: errStream.writes.join('') };
  }

  it('analyze with stdout piped but stderr a terminal ends with a summary line on stderr', async () => {
    const r = await run(true, 'analyze', sample, '--format', 'json');
    expect(r.progress).toMatch(/resumescope: [\d,]+ lines in [\d.]+ s \([\d,]+ lines\/s; read [\d.]+ s, derive [\d.]+ s, detect [\d.]+ s, report [\d.]+ s\); \d+ finding\(s\)\n$/);
    expect(JSON.parse(r.out).version).toBe(1); // stdout carries the report alone
  });

  it('analyze --quiet, and analyze with stderr not a terminal, show none', async () => {
    expect((await run(true, 'analyze', sample, '--quiet')).progress).toBe('');
    expect((await run(false, 'analyze', sample)).progress).toBe('');
  });

  it('ingest shows it too, and takes --quiet', async () => {
    expect((await run(true, 'ingest', sample)).progress).toMatch(/lines in [\d.]+ s .*read .*derive/);
    expect((await run(true, 'ingest', sample, '-q')).progress).toBe('');
  });
});

describe('the api tells a listener (for the tui loading screen)', () => {
  it('analyzeFiles reports stages in order and the lines read', async () => {
    const { analyzeFiles } = await import('../../src/api.js');
    const events: string[] = [];
    let lines = 0;
    await analyzeFiles(['samples/clean.ndjson'], {
      onProgress: (e) => (e.type === 'stage' ? events.push(e.stage) : (lines = e.lines)),
    });
    expect(events).toEqual(['read', 'derive', 'detect']);
    expect(lines).toBeGreaterThan(0);
  });
});
