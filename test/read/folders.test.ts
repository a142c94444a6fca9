import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analyzeFiles } from '../../src/api.js';
import { expandInputs, InputError } from '../../src/read/sources.js';
import { at, findingsOf } from '../helpers/logs.js';
import { folderContents, inReadingOrder, isLiveLogFileName, isLogFileName, podOfLogPath } from '../../src/read/folders.js';

// A folder given as input: which of its files are logs, in which order they are read, and what
// happens to its subfolders. An export split per node, or rotated by logrotate, must not lose
// lines without a word.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-folders-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function files(root: string, names: string[]): void {
  for (const n of names) {
    mkdirSync(join(root, n, '..'), { recursive: true });
    writeFileSync(join(root, n), '');
  }
}

const read = (paths: string[], recursive = false) => expandInputs(paths, { recursive });
const names = (paths: string[], recursive = false) => read(paths, recursive).sources.map((s) => s.name.slice(dir.length + 1));

describe('log file names', () => {
  it('takes rotated generations (numbered, dated, gzipped) for logs, and backups or notes not', () => {
    for (const n of ['mcp.log.1', 'mcp.log.2.gz', 'mcp.ndjson.10', 'mcp.log-20261207', 'mcp.log-20261207.gz', '0.log.20261207-101500', '0.log.20261207-101500.gz', 'A.JSONL.3']) {
      expect(isLogFileName(n), n).toBe(true);
    }
    for (const n of ['mcp.log.bak', 'mcp.ndjson.old', 'notes.txt', 'mcp.log.1.swp', 'README.md', 'mcp.log~']) {
      expect(isLogFileName(n), n).toBe(false);
    }
  });

  it('takes a CSV download (plain, rotated or gzipped) for a log only with --csv: a folder may hold other tables', () => {
    for (const n of ['insights.csv', 'export.CSV.gz', 'splunk.csv.1']) {
      expect(isLogFileName(n, true), n).toBe(true);
      expect(isLogFileName(n), n).toBe(false);
    }
    files(dir, ['a.ndjson', 'insights.csv']);
    expect(names([dir])).toEqual(['a.ndjson']);
    expect(expandInputs([dir], { csv: true }).sources.map((s) => s.name.slice(dir.length + 1))).toEqual(['a.ndjson', 'insights.csv']);
  });

  it('reads a rotated log oldest generation first and its live file last, beside other files in name order', () => {
    expect(inReadingOrder(['mcp.log', 'mcp.log.1', 'mcp.log.2.gz', 'mcp.log.10', 'a.ndjson', 'z.ndjson'])).toEqual([
      'a.ndjson', 'mcp.log.10', 'mcp.log.2.gz', 'mcp.log.1', 'mcp.log', 'z.ndjson',
    ]);
    expect(inReadingOrder(['app.log', 'app.log-20261207', 'app.log-20261205.gz', 'app.log-20261206'])).toEqual([
      'app.log-20261205.gz', 'app.log-20261206', 'app.log-20261207', 'app.log',
    ]);
  });

  it('keeps plain names in plain name order (a gzipped live file after its plain namesake)', () => {
    expect(inReadingOrder(['b.jsonl', 'a.ndjson.gz', 'a.ndjson', 'c.log'])).toEqual(['a.ndjson', 'a.ndjson.gz', 'b.jsonl', 'c.log']);
  });

  it('takes only live files for following: no rotated generation, nothing compressed', () => {
    for (const n of ['mcp.log', 'a.ndjson', '0.log']) expect(isLiveLogFileName(n), n).toBe(true);
    for (const n of ['mcp.log.1', 'mcp.log.gz', 'mcp.log-20261207', 'notes.txt']) expect(isLiveLogFileName(n), n).toBe(false);
    files(dir, ['mcp.log', 'mcp.log.1', 'mcp.log.2.gz', 'old/mcp.log.3']);
    expect(folderContents(dir, { recursive: false, which: 'live' })).toEqual({ files: [join(dir, 'mcp.log')], unread: [], unlistable: [], unlisted: [] });
  });

  it('a folder holding only rotated logs is read, not refused as holding no log files', () => {
    files(dir, ['mcp.log.2.gz', 'mcp.log.1']);
    expect(names([dir])).toEqual(['mcp.log.2.gz', 'mcp.log.1']);
  });
});

describe('files named one by one', () => {
  it("reads a rotated log's generations oldest first, as a folder does, whatever the order given (the shell's app.log* is newest first)", () => {
    files(dir, ['app.log', 'app.log.1', 'app.log.2.gz', 'other.ndjson']);
    const given = ['app.log', 'other.ndjson', 'app.log.1', 'app.log.2.gz'].map((n) => join(dir, n));
    // The generations take the places they were given in; the other file keeps its own.
    expect(names(given)).toEqual(['app.log.2.gz', 'other.ndjson', 'app.log.1', 'app.log']);
  });

  it('near miss: files that are not generations of one log keep the order given', () => {
    files(dir, ['b.ndjson', 'a.ndjson', 'a.ndjson.gz', 'x/app.log.1', 'app.log']);
    const given = ['b.ndjson', 'app.log', 'a.ndjson.gz', 'x/app.log.1', 'a.ndjson'].map((n) => join(dir, n));
    expect(names(given)).toEqual(['b.ndjson', 'app.log', 'a.ndjson.gz', 'x/app.log.1', 'a.ndjson']);
  });

  it("a close logged just before a takeover, in the same millisecond, in an older generation: no dual-writer from app.log*", async () => {
    const line = (ms: number, kind: string, fields: Record<string, unknown>) => JSON.stringify({ ts: at(ms), kind, session: 'S-1', node: 'node-a', ...fields });
    writeFileSync(join(dir, 'app.log.2.gz'), gzipSync([
      line(0, 'session.created', { principal: 'tok:a' }), line(10, 'stream.opened', { stream: 'U1', via: 'get', conn: 'c1' }),
      line(100, 'event.sent', { stream: 'U1', event_id: 1 }),
    ].join('\n') + '\n'));
    writeFileSync(join(dir, 'app.log.1'), [line(200, 'event.sent', { stream: 'U1', event_id: 2 }), line(2000, 'stream.closed', { stream: 'U1', reason: 'error' })].join('\n') + '\n');
    writeFileSync(join(dir, 'app.log'), [
      line(2000, 'upgrade', { last_event_id: 2, stream: 'U1', new_stream: 'U2', decision: 'resume', status: 200, replayed: 0, reemitted: 0, conn: 'c2' }),
      line(2001, 'stream.opened', { stream: 'U2', via: 'get', conn: 'c2' }),
    ].join('\n') + '\n');
    const dualWriters = async (order: string[]) => findingsOf(await analyzeFiles(order.map((n) => join(dir, n))), 'dual-writer');
    expect(await dualWriters(['app.log', 'app.log.1', 'app.log.2.gz'])).toEqual([]);
    // Near miss: the same ties with the live file renamed out of the log (not a generation of it) keep the order given.
    renameSync(join(dir, 'app.log'), join(dir, 'later.log'));
    expect(await dualWriters(['later.log', 'app.log.1', 'app.log.2.gz'])).toHaveLength(1);
  });
});

describe('subfolders', () => {
  beforeEach(() => {
    files(dir, ['top.ndjson', 'node-b/b.ndjson', 'node-a/a.ndjson', 'node-a/deep/a2.log', 'docs/notes.txt', '.git/x.log']);
  });

  it('without --recursive, reads the folder own files and names the subfolders holding logs it did not read', () => {
    const r = read([dir]);
    expect(r.sources.map((s) => s.name)).toEqual([join(dir, 'top.ndjson')]);
    // docs holds no log file, .git is hidden: neither is worth a word.
    expect(r.unread).toEqual([{ folder: dir, subfolders: [join(dir, 'node-a'), join(dir, 'node-b')] }]);
  });

  it('with --recursive, reads its own files, then each subfolder depth first, in name order; hidden ones never', () => {
    const r = read([dir], true);
    expect(r.sources.map((s) => s.name.slice(dir.length + 1))).toEqual(['top.ndjson', 'node-a/a.ndjson', 'node-a/deep/a2.log', 'node-b/b.ndjson']);
    expect(r.unread).toEqual([]);
  });

  it('a folder that holds logs only in subfolders is refused with their names and how to read them', () => {
    rmSync(join(dir, 'top.ndjson'));
    expect(() => read([dir])).toThrow(InputError);
    expect(() => read([dir])).toThrow(/subfolders node-a, node-b do: name them, or pass --recursive/);
    expect(names([dir], true)).toEqual(['node-a/a.ndjson', 'node-a/deep/a2.log', 'node-b/b.ndjson']);
  });

  it('a folder with no logs anywhere is still refused, recursive or not', () => {
    const empty = join(dir, 'docs');
    expect(() => read([empty])).toThrow(`${empty}: folder holds no`);
    expect(() => read([empty], true)).toThrow(InputError);
  });

  it('reads a folder reached again through a symbolic link once', () => {
    symlinkSync(dir, join(dir, 'node-b', 'loop'));
    expect(names([dir], true)).toEqual(['top.ndjson', 'node-a/a.ndjson', 'node-a/deep/a2.log', 'node-b/b.ndjson']);
  });

  it('notes nothing when the subfolders hold no logs', () => {
    rmSync(join(dir, 'node-a'), { recursive: true });
    rmSync(join(dir, 'node-b'), { recursive: true });
    expect(read([dir]).unread).toEqual([]);
  });
});

describe("a kubelet's log paths", () => {
  it('name their pod: the pod folder (any generation of its log), and the container log link', () => {
    const uid = '3f1c9a2e-5b7d-4c1e-9a0f-2b8e6d4c7a91';
    expect(podOfLogPath(`/var/log/pods/billing_mcp-7d9f5-x2kq8_${uid}/mcp/0.log`)).toBe('mcp-7d9f5-x2kq8');
    expect(podOfLogPath(`export/billing_mcp-0_${uid}/mcp/3.log.20261207-101500.gz`)).toBe('mcp-0');
    expect(podOfLogPath(`/var/log/containers/mcp-0_billing_mcp-${'ab12'.repeat(16)}.log`)).toBe('mcp-0');
  });

  it('near misses name none: a plain log, an underscore name outside the layout, a pod folder without its container folder', () => {
    expect(podOfLogPath('/var/log/mcp/server.ndjson')).toBeUndefined();
    expect(podOfLogPath('logs/node_a_b/server.log')).toBeUndefined();
    expect(podOfLogPath('billing_mcp-0_3f1c9a2e-5b7d-4c1e-9a0f-2b8e6d4c7a91/0.log')).toBeUndefined();
  });
});

// An SRE's report: a log shipper's FIFO named fifo.log in the folder made `analyze FOLDER` hang, without a word.
describe('members that are no regular files', () => {
  it('a FIFO in a folder is an unusable input, said so, and never opened', async () => {
    files(dir, ['a.ndjson']);
    const fifo = join(dir, 'fifo.log');
    execFileSync('mkfifo', [fifo]);
    const { sources } = read([dir]);
    expect(sources.map((s) => s.name)).toEqual([join(dir, 'a.ndjson'), fifo]);
    const open = sources[1]!.open();
    const err = await new Promise<Error>((resolve) => open.once('error', resolve));
    expect(err.message).toBe("not a regular file (a FIFO): a folder's members are read only when they are files; name it to read it");
  });

  it('near miss: a FIFO named on the command line is read (`analyze <(zcat x.gz)`)', () => {
    const fifo = join(dir, 'named.log');
    execFileSync('mkfifo', [fifo]);
    const { sources } = read([fifo]);
    expect(sources).toHaveLength(1);
    expect(sources[0]!.path).toBe(fifo);
  });
});
