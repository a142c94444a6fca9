import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { analyzeFiles } from '../../src/api.js';
import { createRecorder, RECORDS_DROPPED, toLogLine, type ResumptionRecord } from '../../src/instrument/index.js';

// A log shipper hung on a pipe must not grow the server's memory, nor hang its
// shutdown: the recorder holds a bounded amount for a stream, drops the rest
// (saying so), and close() gives up after a while.

/** A stream that takes nothing until released (a hung reader), then everything at once. */
function heldStream(): { stream: Writable; text: () => string; release: () => void } {
  let text = '';
  let held: (() => void) | undefined;
  let holding = true;
  const stream = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString();
      if (holding) held = () => callback();
      else callback();
    },
  });
  return {
    stream,
    text: () => text,
    release() {
      holding = false;
      held?.();
    },
  };
}

const parse = (text: string): Record<string, unknown>[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const created = (i: number) => ({ kind: 'session.created' as const, session: `S${i}` });

let warn: MockInstance<typeof process.emitWarning>;
const warnings = (): string[] => warn.mock.calls.map((c) => String(c[0]));
beforeEach(() => {
  warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
});
afterEach(() => {
  warn.mockRestore();
  vi.useRealTimers();
});

describe('a stream sink that stops taking lines', () => {
  it('holds no more than the bound, drops the rest with one warning, and counts them in a note once it drains', async () => {
    const sink = heldStream();
    const recorder = createRecorder(sink.stream, { node: 'n1', maxUnwrittenBytes: 2000 });
    for (let i = 1; i <= 1000; i++) recorder.record(created(i));
    expect(sink.stream.writableLength).toBeLessThanOrEqual(2000);
    expect(warnings()).toEqual([expect.stringMatching(/bound 2000\): dropping records until it drains/)]);

    sink.release();
    await settle();
    recorder.record(created(1001));
    await recorder.close();
    expect(warnings()).toHaveLength(1);

    const lines = parse(sink.text());
    const noteAt = lines.findIndex((l) => l.msg === RECORDS_DROPPED);
    const kept = lines.slice(0, noteAt).map((l) => l.seq);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).toEqual(kept.map((_, i) => i + 1));
    expect(lines[noteAt]).toEqual({
      ts: expect.any(String),
      msg: RECORDS_DROPPED,
      dropped: 1000 - kept.length,
      since: expect.any(String),
      first_seq: kept.length + 1,
      last_seq: 1000,
      node: 'n1',
    });
    expect(lines.slice(noteAt + 1)).toEqual([expect.objectContaining({ session: 'S1001', seq: 1001 })]);

    // The note is an ordinary log line to the analyzer, not a rejected one.
    const dir = mkdtempSync(join(tmpdir(), 'resumescope-recorder-'));
    try {
      const file = join(dir, 'log.ndjson');
      writeFileSync(file, sink.text());
      const report = await analyzeFiles([file]);
      expect(report.summary).toMatchObject({ records: kept.length + 1, ignored_lines: 1, rejected_lines: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('resolves close() after 2 s by default when the stream never drains, saying what it did not take', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const sink = heldStream();
    const recorder = createRecorder(sink.stream, { maxUnwrittenBytes: 2000 });
    for (let i = 1; i <= 1000; i++) recorder.record(created(i));
    let closed = false;
    void recorder.close().then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(1999);
    expect(closed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(closed).toBe(true);
    expect(warnings()[1]).toMatch(/closed after 2000 ms with \d+ lines \(\d+ bytes\) the log stream had not taken, and \d+ records dropped before were not noted/);
    expect(sink.stream.writableEnded).toBe(false);
  });

  it('takes its close timeout from the options', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const recorder = createRecorder(heldStream().stream, { closeTimeoutMs: 50 });
    recorder.record(created(1));
    let closed = false;
    void recorder.close().then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(50);
    expect(closed).toBe(true);
    expect(warnings()).toEqual([expect.stringMatching(/closed after 50 ms with 1 lines/)]);
  });

  it('waits as long as the stream takes when the close timeout is Infinity', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const sink = heldStream();
    const recorder = createRecorder(sink.stream, { closeTimeoutMs: Infinity });
    recorder.record(created(1));
    let closed = false;
    void recorder.close().then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(24 * 3600 * 1000);
    expect(closed).toBe(false);
    sink.release();
    await settle();
    expect(closed).toBe(true);
    expect(warnings()).toEqual([]);
  });
});

describe('a slow stream sink that keeps draining', () => {
  it('loses nothing, writes the lines it always wrote, and closes without a warning', async () => {
    let text = '';
    const stream = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _encoding, callback) {
        text += chunk.toString();
        setImmediate(callback);
      },
    });
    const recorder = createRecorder(stream, { node: 'n1', maxUnwrittenBytes: 64 * 1024 });
    const records: ResumptionRecord[] = [];
    for (let round = 0; round < 5; round++) {
      // Far more than the stream's high-water mark each round, below the bound.
      for (let i = 0; i < 200; i++) records.push(recorder.record(created(records.length + 1)));
      expect(stream.writableLength).toBeGreaterThan(16);
      await new Promise((resolve) => stream.once('drain', resolve));
    }
    await recorder.close();
    expect(text).toBe(records.map((r) => `${JSON.stringify(toLogLine(r))}\n`).join(''));
    expect(warnings()).toEqual([]);
  });
});
