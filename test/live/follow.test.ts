import { createHash } from 'node:crypto';
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { follow, STDIN_NAME } from '../../src/read/follow.js';
import { LineAssembler, MAX_LINE_BYTES } from '../../src/read/lines.js';
import { collect, sleep, tempDir, waitFor } from './support.js';

// Every follower runs on a short poll in a temp folder and is aborted in afterEach.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function start(paths: string[], opts: { pollMs?: number; stdin?: PassThrough; rotationGraceMs?: number } = {}) {
  const controller = new AbortController();
  const run = collect(
    follow(paths, {
      signal: controller.signal, pollMs: opts.pollMs ?? 50, ...(opts.stdin && { stdin: opts.stdin }),
      ...(opts.rotationGraceMs !== undefined && { rotationGraceMs: opts.rotationGraceMs }),
    }),
  );
  cleanups.push(async () => {
    controller.abort();
    await run.done;
  });
  return { ...run, stop: () => controller.abort() };
}

const sha256Of = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

function dir() {
  const d = tempDir();
  cleanups.push(() => d.remove());
  return d;
}

describe('follow', () => {
  it('reads what a file holds, then each appended line as it arrives, with line numbers', async () => {
    const file = dir().file('app.ndjson');
    writeFileSync(file, 'one\ntwo\n');
    const f = start([file]);
    await waitFor('the existing lines', () => f.texts().length === 2);
    appendFileSync(file, 'three\n');
    await waitFor('the appended line', () => f.texts().includes('three'));
    const lines = f.events.flatMap((e) => (e.type === 'lines' ? e.lines : []));
    expect(lines.map((l) => l.line)).toEqual([1, 2, 3]);
    expect(f.events.every((e) => e.type === 'lines' && e.source === file)).toBe(true);
  });

  it('holds a partial last line until its newline arrives', async () => {
    const file = dir().file('app.ndjson');
    writeFileSync(file, 'first\n{"half":');
    const f = start([file]);
    await waitFor('the complete line', () => f.texts().includes('first'));
    await sleep(200); // several polls
    expect(f.texts()).toEqual(['first']);
    appendFileSync(file, '1}\n');
    await waitFor('the completed line', () => f.texts().length === 2);
    expect(f.texts()).toEqual(['first', '{"half":1}']);
  });

  it('finishes a file renamed away and reads the new file at the path from its start, as a source of its own', async () => {
    const d = dir();
    const file = d.file('app.ndjson');
    writeFileSync(file, 'old-1\n');
    const f = start([file], { rotationGraceMs: 200 });
    await waitFor('the first line', () => f.texts().includes('old-1'));
    // The writer's last words to the old file, its unterminated last line included, then the rotation.
    appendFileSync(file, 'old-2\nold-tail');
    renameSync(file, d.file('app.ndjson.1'));
    writeFileSync(file, 'new-1\nnew-2\n');
    await waitFor('the new file', () => f.texts().includes('new-2'));
    // The renamed file is done once it has not grown for the grace period: its last line, its end, its content hash.
    await waitFor('the end of the old file', () => f.events.some((e) => e.type === 'end'), 3000);
    expect(f.texts(file)).toEqual(['old-1', 'old-2', 'old-tail']);
    const rotated = `${file} (rotated 1)`;
    expect(f.texts(rotated)).toEqual(['new-1', 'new-2']);
    expect(f.events).toContainEqual({ type: 'end', source: file, why: 'rotated', sha256: sha256Of(d.file('app.ndjson.1')) });
    const newLines = f.events.flatMap((e) => (e.type === 'lines' && e.source === rotated ? e.lines.map((l) => l.line) : []));
    expect(newLines).toEqual([1, 2]);
    appendFileSync(file, 'new-3\n');
    await waitFor('an append to the new file', () => f.texts(rotated).includes('new-3'));
  });

  it('starts again from the beginning of a file that was truncated, the bytes read before hashed as its copy would be', async () => {
    const d = dir();
    const file = d.file('app.ndjson');
    writeFileSync(file, 'a-long-first-line\nanother-long-line\n');
    const f = start([file]);
    await waitFor('the first content', () => f.texts().length === 2);
    // copytruncate: the copy holds what was read to the end, so the truncated source's hash is the copy's.
    writeFileSync(d.file('app.ndjson.1'), readFileSync(file));
    truncateSync(file, 0);
    appendFileSync(file, 'fresh\n');
    const truncated = `${file} (truncated 1)`;
    await waitFor('the content after truncation', () => f.texts(truncated).includes('fresh'));
    expect(f.events).toContainEqual({ type: 'end', source: file, why: 'truncated', sha256: sha256Of(d.file('app.ndjson.1')) });
    expect(f.texts(file)).toEqual(['a-long-first-line', 'another-long-line']);
  });

  it('waits for a file that does not exist yet', async () => {
    const file = dir().file('later.ndjson');
    const f = start([file]);
    await sleep(150);
    expect(f.events).toEqual([]);
    writeFileSync(file, 'hello\n');
    await waitFor('the file that appeared', () => f.texts(file).includes('hello'));
  });

  it('finds a file that appears in a discovered folder at once through fs.watch, the folder present or not yet, even with slow polls', async () => {
    const d = dir();
    const folders = [d.file('present'), d.file('later')];
    mkdirSync(folders[0]!);
    const listed = () => folders.flatMap((f) => (existsSync(f) ? readdirSync(f).map((n) => join(f, n)) : []));
    const controller = new AbortController();
    const f = collect(follow([], { signal: controller.signal, pollMs: 10_000, discover: listed, discoverMs: 10_000, discoverIn: folders }));
    cleanups.push(async () => {
      controller.abort();
      await f.done;
    });
    await sleep(300); // the watches are in place, the first discovery done
    let t0 = Date.now();
    writeFileSync(d.file('present/a.log'), 'in-present\n');
    await waitFor('the file in the folder that was there', () => f.texts().includes('in-present'), 2000);
    expect(Date.now() - t0).toBeLessThan(1000);
    t0 = Date.now();
    mkdirSync(folders[1]!);
    writeFileSync(d.file('later/b.log'), 'in-later\n');
    await waitFor('the file in the folder that appeared', () => f.texts().includes('in-later'), 2000);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('lists a discovered folder again for an entry made in it, not for appends to a file it does not follow', async () => {
    const d = dir();
    const folder = d.file('logs');
    mkdirSync(folder);
    writeFileSync(join(folder, 'app.log.1'), ''); // a rotated generation a writer that never reopens goes on writing
    let listings = 0;
    const listed = () => {
      listings++;
      return readdirSync(folder).filter((n) => !n.endsWith('.1')).map((n) => join(folder, n));
    };
    const controller = new AbortController();
    const f = collect(follow([], { signal: controller.signal, pollMs: 10_000, discover: listed, discoverMs: 10_000, discoverIn: [folder] }));
    cleanups.push(async () => {
      controller.abort();
      await f.done;
    });
    await sleep(300); // the watch is in place, the first discovery done
    const before = listings;
    for (let i = 0; i < 40; i++) {
      appendFileSync(join(folder, 'app.log.1'), `late ${i}\n`);
      await sleep(20);
    }
    expect(listings - before).toBe(0);
    // near miss: a file made in it is a new entry, listed at once
    writeFileSync(join(folder, 'b.log'), 'new\n');
    await waitFor('the new file', () => f.texts().includes('new'), 2000);
    expect(listings - before).toBeGreaterThan(0);
  });

  it('notices an append well within a second through fs.watch, even with a slow poll', async () => {
    const file = dir().file('app.ndjson');
    writeFileSync(file, '');
    const f = start([file], { pollMs: 10_000 });
    await sleep(100); // the watch is in place
    const t0 = Date.now();
    appendFileSync(file, 'now\n');
    await waitFor('the append', () => f.texts().includes('now'), 2000);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('reads stdin as it arrives and reports its end', async () => {
    const stdin = new PassThrough();
    const f = start(['-'], { stdin });
    stdin.write('x\ny');
    await waitFor('the first line', () => f.texts().includes('x'));
    expect(f.texts()).toEqual(['x']);
    stdin.end('\n');
    await waitFor('the end of stdin', () => f.events.some((e) => e.type === 'end'));
    expect(f.texts(STDIN_NAME)).toEqual(['x', 'y']);
    expect(f.events.at(-1)).toEqual({ type: 'end', source: STDIN_NAME, why: 'eof' });
  });

  it('stops when aborted, while waiting, and lets go of its timers and watchers', async () => {
    const file = dir().file('app.ndjson');
    writeFileSync(file, 'x\n');
    const f = start([file]);
    await waitFor('the line', () => f.texts().length === 1);
    f.stop();
    await expect(Promise.race([f.done.then(() => 'stopped'), sleep(2000).then(() => 'still running')])).resolves.toBe('stopped');
    appendFileSync(file, 'after\n');
    await sleep(150);
    expect(f.texts()).toEqual(['x']);
  });
});

describe('follow: rotation, truncation and the end of the run, as logrotate and a stopped run leave files', () => {
  /**
   * logrotate's rename and create while the server still holds the old file open: the old file read to old-1,
   * renamed away, a new one written at the path; the writer's descriptor still on the old file.
   */
  async function renamedWithWriterOpen(rotationGraceMs: number) {
    const d = dir();
    const file = d.file('app.ndjson');
    writeFileSync(file, 'old-1\n');
    const f = start([file], { rotationGraceMs });
    await waitFor('the first line', () => f.texts().includes('old-1'));
    const writer = openSync(file, 'a');
    renameSync(file, d.file('app.ndjson.1'));
    writeFileSync(file, 'new-1\n');
    return { file, f, writer };
  }

  it('reads on in a file renamed away while its writer still writes to it after the new file appeared (logrotate: rename, create)', async () => {
    const { file, f, writer } = await renamedWithWriterOpen(600);
    await waitFor('the new file', () => f.texts(`${file} (rotated 1)`).includes('new-1'));
    // The path holds the new file from now on: said at once, before the old file's lines end (`o` must not
    // open the new file at a line of the old one).
    expect(f.events).toContainEqual({ type: 'moved', source: file });
    // Until postrotate tells it to reopen, the server writes on through the descriptor it holds.
    for (const n of [2, 3, 4]) {
      writeSync(writer, `old-${n}\n`);
      await sleep(150);
    }
    closeSync(writer);
    await waitFor('the late lines', () => f.texts(file).includes('old-4'), 3000);
    expect(f.texts(file)).toEqual(['old-1', 'old-2', 'old-3', 'old-4']);
    expect(f.events.some((e) => e.type === 'end')).toBe(false);
    await waitFor('the end of the old file once idle for the grace period', () => f.events.some((e) => e.type === 'end'), 3000);
  });

  it('stops reading a renamed file that has not grown for the grace period: a line written to it later is the rotated file\'s, not followed (near miss)', async () => {
    const { file, f, writer } = await renamedWithWriterOpen(200);
    await waitFor('the end of the old file', () => f.events.some((e) => e.type === 'end'), 3000);
    writeSync(writer, 'too-late\n');
    closeSync(writer);
    await sleep(300);
    expect(f.texts()).not.toContain('too-late');
  });

  it('starts again from the beginning of a file truncated and written past its old size between two checks (copytruncate)', async () => {
    const file = dir().file('app.ndjson');
    writeFileSync(file, 'first-1\nfirst-2\n');
    const f = start([file], { pollMs: 10_000 });
    await waitFor('the first content', () => f.texts().length === 2);
    // In one go, before the follower looks: the file ends up longer than what was read of it.
    truncateSync(file, 0);
    appendFileSync(file, 'second-1-which-is-long\nsecond-2-which-is-long\n');
    const truncated = `${file} (truncated 1)`;
    await waitFor('the content after truncation', () => f.texts(truncated).includes('second-2-which-is-long'), 3000);
    expect(f.texts(truncated)).toEqual(['second-1-which-is-long', 'second-2-which-is-long']);
    expect(f.texts(file)).toEqual(['first-1', 'first-2']);
  });

  it('takes a file that only grew, its first bytes as they were, for the same file (near miss)', async () => {
    const file = dir().file('app.ndjson');
    writeFileSync(file, 'a\n');
    const f = start([file]);
    await waitFor('the first line', () => f.texts().length === 1);
    for (const n of [1, 2, 3]) {
      appendFileSync(file, `more-${n}\n`);
      await sleep(80);
    }
    await waitFor('every line', () => f.texts().length === 4);
    expect(f.events.every((e) => e.type === 'lines' && e.source === file)).toBe(true);
  });

  it('at the end of the run gives each file\'s unterminated last line, then its end with its content hash', async () => {
    const d = dir();
    const [open, closed] = [d.file('open.ndjson'), d.file('closed.ndjson')];
    writeFileSync(open, 'one\ntwo-without-newline');
    writeFileSync(closed, 'one\n');
    const f = start([open, closed]);
    await waitFor('the complete lines', () => f.texts(open).length === 1 && f.texts(closed).length === 1);
    await sleep(150);
    expect(f.texts(open)).toEqual(['one']);
    f.stop();
    await f.done;
    expect(f.texts(open)).toEqual(['one', 'two-without-newline']);
    // A file whose last line ended has nothing more to give (near miss).
    expect(f.texts(closed)).toEqual(['one']);
    expect(f.events.filter((e) => e.type === 'end')).toEqual([
      { type: 'end', source: open, why: 'stopped', sha256: sha256Of(open) },
      { type: 'end', source: closed, why: 'stopped', sha256: sha256Of(closed) },
    ]);
  });

  /** A followed file of one line, read to its end. */
  async function readToItsEnd(name: string) {
    const file = dir().file(name);
    writeFileSync(file, 'one\n');
    const f = start([file]);
    await waitFor('the first line', () => f.texts(file).includes('one'));
    await sleep(120); // read to its end
    return { file, f };
  }

  it('keeps a last line its writer was still writing at the stop as rejected, maybe half a line, and gives that file no hash', async () => {
    const { file, f } = await readToItsEnd('busy.ndjson');
    appendFileSync(file, '{"ts":"2026-11-09T10:00:0'); // a block-buffered writer flushed half a line
    await sleep(150); // polled (every 50 ms): read, and held as a line not ended
    f.stop();
    await f.done;
    const rejected = f.events.flatMap((e) => (e.type === 'lines' ? e.lines : [])).filter((l) => 'error' in l);
    expect(rejected).toEqual([{ line: 2, error: expect.stringMatching(/^unterminated at the stop, its file written to within 1000 ms before/), preview: '{"ts":"2026-11-09T10:00:0' }]);
    expect(f.events.filter((e) => e.type === 'end')).toEqual([{ type: 'end', source: file, why: 'stopped' }]);
  });

  it('near miss: a last line its writer left over a second before the stop is read as a line, with the hash', async () => {
    const { file, f } = await readToItsEnd('quiet.ndjson');
    appendFileSync(file, 'two-without-newline');
    await sleep(1300);
    f.stop();
    await f.done;
    expect(f.texts(file)).toEqual(['one', 'two-without-newline']);
    expect(f.events.filter((e) => e.type === 'end')).toEqual([{ type: 'end', source: file, why: 'stopped', sha256: sha256Of(file) }]);
  });

  it('at the end of the run gives stdin\'s unterminated last line too', async () => {
    const stdin = new PassThrough();
    const f = start(['-'], { stdin });
    stdin.write('x\ny');
    await waitFor('the first line', () => f.texts().includes('x'));
    f.stop();
    await f.done;
    expect(f.texts(STDIN_NAME)).toEqual(['x', 'y']);
  });
});

describe('LineAssembler', () => {
  it('cuts chunks into lines across chunk borders, drops the CR of CRLF, and judges bad bytes like the reader', () => {
    const a = new LineAssembler();
    expect(a.push(Buffer.from('ab'))).toEqual([]);
    expect(a.push(Buffer.from('c\r\nde'))).toEqual([{ line: 1, text: 'abc', offset: 0, bytes: 3 }]);
    expect(a.push(Buffer.from([0x66, 0x00, 0x0a]))).toEqual([{ line: 2, error: 'binary content (NUL byte): not a text log line', preview: 'def.' }]);
    expect(a.push(Buffer.from([0xc3, 0x28, 0x0a]))[0]).toMatchObject({ line: 3, error: 'invalid UTF-8' });
    expect(a.end()).toEqual([]);
  });

  it('keeps only the head of a line over the cap, and reports it when its newline comes', () => {
    const a = new LineAssembler();
    const big = Buffer.alloc(MAX_LINE_BYTES + 10, 0x61);
    expect(a.push(big)).toEqual([]);
    const [line] = a.push(Buffer.from('aaa\nok\n'));
    expect(line).toMatchObject({ line: 1, error: expect.stringMatching(/longer than/) });
    expect(a.end()).toEqual([]);
  });

  it('gives a held partial line as the last line when the input ends', () => {
    const a = new LineAssembler();
    a.push(Buffer.from('x\ntail'));
    expect(a.end()).toEqual([{ line: 2, text: 'tail', offset: 2, bytes: 4, unterminated: true }]);
  });
});
