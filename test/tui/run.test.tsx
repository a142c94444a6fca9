import { EventEmitter } from 'node:events';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { DashboardModel } from '../../src/tui/view-model.js';
import { renderDashboard } from '../../src/tui/run.js';
import { fixtureLoadDetail, fixtureModel } from './fixtures.js';
import { cells, frameLines } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

/** A terminal stand-in: records what is written, reports a size, can be resized. */
class FakeStdout extends EventEmitter {
  isTTY = true;
  written = '';
  /** Each write: ink writes one whole frame (with its cursor moves) per call. */
  chunks: string[] = [];
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  write = (chunk: string) => {
    this.written += chunk;
    this.chunks.push(chunk);
    return true;
  };
  resize(columns: number, rows: number) {
    this.columns = columns;
    this.rows = rows;
    this.emit('resize');
  }
}

class FakeStdin extends EventEmitter {
  isTTY = true;
  private pending: string | null = null;
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
  read = () => {
    const data = this.pending;
    this.pending = null;
    return data;
  };
  type(data: string) {
    this.pending = data;
    this.emit('readable');
  }
}

function harness(columns = 80, rows = 24) {
  const stdout = new FakeStdout(columns, rows);
  const stdin = new FakeStdin();
  let model = fixtureModel();
  const getModel = vi.fn(() => model);
  let listener: (() => void) | undefined;
  const unsubscribe = vi.fn(() => {
    listener = undefined;
  });
  const subscribe = (onChange: () => void) => {
    listener = onChange;
    return unsubscribe;
  };
  return {
    stdout,
    stdin,
    getModel,
    unsubscribe,
    setModel: (m: DashboardModel) => {
      model = m;
      listener?.();
    },
    fire: () => listener?.(),
    start: (throttleMs?: number) =>
      renderDashboard(getModel, fixtureLoadDetail, {
        throttleMs,
        subscribe,
        stdout: stdout as unknown as NodeJS.WriteStream,
        stdin: stdin as unknown as NodeJS.ReadStream,
      }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Where CI is set, ink writes no frame but the last (is-in-ci, read when ink loads); some of these tests count the
// frames written, so ink is loaded here as on a terminal. Set before the imports (vi.hoisted), restored after.
const ciBefore = vi.hoisted(() => {
  const was = process.env.CI;
  process.env.CI = 'false';
  return was;
});
afterAll(() => {
  if (ciBefore === undefined) delete process.env.CI;
  else process.env.CI = ciBefore;
});

/** Resolves with the promise, or fails after `ms`: a dashboard that never quits must not hang the suite. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(`not settled within ${ms} ms`)))]);
}

let stopAll: (() => void)[] = [];
afterEach(() => {
  for (const stop of stopAll) stop();
  stopAll = [];
});

describe('renderDashboard', () => {
  it('resolves when the user presses q, and stops listening for changes and resizes', async () => {
    const h = harness();
    const resizeListenersBefore = h.stdout.listenerCount('resize');
    const done = h.start();
    stopAll.push(() => h.stdin.type('q'));
    await sleep(20);
    h.stdin.type('q');
    await within(done, 2000);
    expect(h.unsubscribe).toHaveBeenCalledTimes(1);
    expect(h.stdout.listenerCount('resize')).toBe(resizeListenersBefore);
    expect(frameLines(h.stdout.written).join('\n')).toContain('records 12,345');
  });

  it('resolves on ctrl+c too', async () => {
    const h = harness();
    const done = h.start();
    await sleep(20);
    h.stdin.type('\u0003');
    await within(done, 2000);
    expect(h.unsubscribe).toHaveBeenCalledTimes(1);
  });

  it('redraws at most once per throttle interval however fast changes arrive, and draws the last one', async () => {
    const h = harness();
    const done = h.start(50);
    stopAll.push(() => h.stdin.type('q'));
    const callsAtStart = h.getModel.mock.calls.length;
    // A change every tick for at least 300 ms and 150 changes (a loaded machine ticks
    // slower), bounded at 5 s: a fast tail of a busy log.
    let n = 0;
    const started = Date.now();
    while ((Date.now() - started < 300 || n < 150) && Date.now() - started < 5_000) {
      h.setModel(fixtureModel({ records: 20_000 + n++ }));
      await new Promise((r) => setImmediate(r));
    }
    const elapsed = Date.now() - started;
    await sleep(120);
    const draws = h.getModel.mock.calls.length - callsAtStart;
    expect(n).toBeGreaterThanOrEqual(150);
    expect(draws).toBeGreaterThanOrEqual(2);
    expect(draws).toBeLessThanOrEqual(Math.ceil((elapsed + 120) / 50) + 1);
    h.stdin.type('q');
    await within(done, 2000);
    // The final state made it to the screen: coalescing never drops the latest change.
    expect(frameLines(h.stdout.written).join('\n')).toContain(`records ${(20_000 + n - 1).toLocaleString('en-US')}`);
  });

  it('redraws for the new size when the terminal is resized', async () => {
    const h = harness(120, 40);
    const done = h.start(10_000);
    stopAll.push(() => h.stdin.type('q'));
    await sleep(20);
    const before = h.getModel.mock.calls.length;
    h.stdout.resize(50, 12);
    // Immediately, not after the (long) throttle interval.
    expect(h.getModel.mock.calls.length).toBe(before + 1);
    await sleep(20);
    h.stdin.type('q');
    await within(done, 2000);
    // The last frame drawn is laid out for 50x12.
    const lastFrameChunk = h.stdout.chunks.filter((c) => c.includes('resumescope')).at(-1);
    const all = frameLines(lastFrameChunk);
    const lines = all.slice(all.findIndex((l) => l.startsWith('resumescope')));
    while (lines.at(-1) === '') lines.pop();
    expect(lines).toHaveLength(12);
    for (const line of lines) expect(cells(line), line).toBeLessThanOrEqual(50);
    expect(lines[1]).toMatch(/^records 12,345/);
    expect(lines[11]).toMatch(/^tab pane/);
  });

  // Terminal review 57: watch redrew the whole screen (ink clears it for a frame as tall as the
  // terminal) every second while nothing changed, as the rate tick told it of a "change".
  it('draws nothing when told of a change that leaves the model as it was, and draws a real change', async () => {
    const h = harness();
    const done = h.start(10);
    stopAll.push(() => h.stdin.type('q'));
    const frames = () => h.stdout.chunks.filter((c) => c.includes('resumescope')).length;
    // Bounded waits, not fixed sleeps: on a loaded machine the first frame may take longer than 30 ms.
    const before = await waitFor('the first frame', () => frames() > 0 && frames(), 2000);
    for (let i = 0; i < 5; i++) {
      h.fire();
      await sleep(20);
    }
    expect(frames()).toBe(before);
    // Near miss: a new model is drawn.
    h.setModel(fixtureModel({ records: 54_321 }));
    await waitFor('the new model drawn', () => frames() > before, 2000);
    await sleep(40);
    expect(frames()).toBe(before + 1);
    expect(h.stdout.chunks.filter((c) => c.includes('resumescope')).at(-1)).toContain('records 54,321');
    h.stdin.type('q');
    await within(done, 2000);
  });
});
