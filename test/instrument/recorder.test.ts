import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRecorder, type ResumptionRecord } from '../../src/instrument/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempFile = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'resumescope-recorder-'));
  dirs.push(dir);
  return join(dir, 'log.ndjson');
};
const lines = (file: string): ResumptionRecord[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as ResumptionRecord);

describe('createRecorder', () => {
  it('stamps each record with an RFC 3339 time from its clock, a counting seq and its node', () => {
    const got: ResumptionRecord[] = [];
    let now = Date.UTC(2026, 10, 9, 10, 0, 0, 5);
    const recorder = createRecorder((r) => got.push(r), { node: 'n1', clock: () => now++ });
    recorder.record({ kind: 'session.created', session: 'S1' });
    recorder.record({ kind: 'stream.opened', session: 'S1', stream: 'get-1', via: 'get' });
    expect(got).toEqual([
      { ts: '2026-11-09T10:00:00.005Z', kind: 'session.created', session: 'S1', seq: 1, node: 'n1' },
      { ts: '2026-11-09T10:00:00.006Z', kind: 'stream.opened', session: 'S1', stream: 'get-1', via: 'get', seq: 2, node: 'n1' },
    ]);
  });

  it('counts seq per recorder, and names the node after host and process by default', () => {
    const a = createRecorder(() => {});
    const b = createRecorder(() => {});
    a.record({ kind: 'session.created', session: 'S1' });
    expect(a.record({ kind: 'session.created', session: 'S2' }).seq).toBe(2);
    expect(b.record({ kind: 'session.created', session: 'S3' }).seq).toBe(1);
    expect(a.node).toMatch(new RegExp(`/${process.pid}$`));
  });

  it('appends one JSON line per record to a file path, after what the file already held', async () => {
    const file = tempFile();
    writeFileSync(file, '{"ts":0,"kind":"session.created","session":"old"}\n');
    const recorder = createRecorder(file, { node: 'n1' });
    recorder.record({ kind: 'session.created', session: 'S1' });
    recorder.record({ kind: 'session.terminated', session: 'S1', reason: 'client_delete' });
    await recorder.close();
    expect(lines(file).map((r) => r.session)).toEqual(['old', 'S1', 'S1']);
    expect(lines(file)[2]).toMatchObject({ kind: 'session.terminated', seq: 2, node: 'n1' });
  });

  it('writes nothing after close', async () => {
    const file = tempFile();
    const recorder = createRecorder(file);
    recorder.record({ kind: 'session.created', session: 'S1' });
    await recorder.close();
    recorder.record({ kind: 'session.created', session: 'S2' });
    await recorder.close();
    expect(lines(file).map((r) => r.session)).toEqual(['S1']);
  });

  it("writes to a caller's stream and leaves it open", async () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const recorder = createRecorder(stream, { node: 'n1' });
    recorder.record({ kind: 'session.created', session: 'S1' });
    await recorder.close();
    expect(stream.writableEnded).toBe(false);
    expect(JSON.parse(text.trim())).toMatchObject({ kind: 'session.created', session: 'S1' });
  });

  it('never throws into the server when its sink fails, and warns once', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const recorder = createRecorder(() => {
        throw new Error('disk full');
      });
      expect(() => recorder.record({ kind: 'session.created', session: 'S1' })).not.toThrow();
      expect(() => recorder.record({ kind: 'session.created', session: 'S2' })).not.toThrow();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toContain('disk full');
    } finally {
      warn.mockRestore();
    }
  });
});
