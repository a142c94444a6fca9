// `o`: which program gets which arguments, and what is opened when the log
// line is not in a plain file on disk (compressed, stdin, rotated away).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/api.js';
import { fileSource } from '../../src/read/sources.js';
import { lineOpener, storedContext, viewerCommand } from '../../src/tui/wire/open-line.js';
import { rejectedLoader } from '../../src/tui/wire/rejected.js';

const dir = mkdtempSync(join(tmpdir(), 'rs-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LINES = [
  '{"ts":"2026-11-09T10:00:00.000Z","kind":"session.created","session":"S1","incarnation":"i-1"}',
  '{"ts":"2026-11-09T10:00:00.010Z","kind":"stream.opened","session":"S1","stream":"g1","via":"get"}',
  'not json at all',
  '{"ts":"2026-11-09T10:00:01.000Z","kind":"event.sent","session":"S1","stream":"g1","event_id":1}',
];

describe('viewerCommand', () => {
  it('$EDITOR gets +LINE then the file, as positional arguments of sh (never shell text)', () => {
    const c = viewerCommand({ EDITOR: 'vim' }, "/tmp/it's; rm -rf x.ndjson", 42);
    expect(c.command).toBe('sh');
    expect(c.args.slice(0, 2)).toEqual(['-c', 'vim "$1" "$2"']);
    expect(c.args.slice(3)).toEqual(['+42', "/tmp/it's; rm -rf x.ndjson"]);
    expect(viewerCommand({ VISUAL: 'code -w', EDITOR: 'vim' }, 'a', 1).args[1]).toBe('code -w "$1" "$2"');
  });

  it('a relative file name is given as ./name: a log named +!cmd or -c is never read as a command or an option', () => {
    expect(viewerCommand({ EDITOR: 'vim' }, '+!touch PWNED;.ndjson', 3).args.slice(3)).toEqual(['+3', './+!touch PWNED;.ndjson']);
    expect(viewerCommand({}, '-c.ndjson', 3).args[4]).toBe('./-c.ndjson');
    // Near miss: an absolute path cannot be read as either, and is given as it is.
    expect(viewerCommand({ EDITOR: 'vim' }, '/logs/+x.ndjson', 3).args[4]).toBe('/logs/+x.ndjson');
  });

  it('without an editor, $PAGER; less (the default) gets +LINEg', () => {
    expect(viewerCommand({}, 'a.ndjson', 7).args.slice(1)).toEqual(['less "$1" "$2"', 'sh', '+7g', './a.ndjson']);
    expect(viewerCommand({ PAGER: '/usr/bin/less -R' }, 'a', 7).args[3]).toBe('+7g');
    expect(viewerCommand({ PAGER: 'most' }, 'a', 7).args[3]).toBe('+7');
  });
});

describe('lineOpener', () => {
  it('opens a plain file where it is, and reports a failing viewer', async () => {
    const plainFile = join(dir, 'plain.ndjson');
    writeFileSync(plainFile, LINES.join('\n') + '\n');
    const ws = await loadWorkspace([fileSource(plainFile)]);
    const calls: string[][] = [];
    const open = lineOpener(ws.db, { env: { EDITOR: 'ed' }, spawn: (_c, args) => (calls.push(args), { status: 0 }) });
    expect(open({ file: plainFile, line: 4 })).toBeUndefined();
    expect(calls[0]?.slice(3)).toEqual(['+4', plainFile]);
    const failing = lineOpener(ws.db, { env: {}, spawn: () => ({ status: 3 }) });
    expect(failing({ file: plainFile, line: 1 })).toBe('the viewer exited with status 3');
    const missing = lineOpener(ws.db, { env: {}, spawn: () => ({ status: null, error: new Error('spawn less ENOENT') }) });
    expect(missing({ file: plainFile, line: 1 })).toContain('ENOENT');
    // Rejected lines are listed in file and line order with their reason.
    expect(rejectedLoader(ws.db)(0, 10)).toEqual([expect.objectContaining({ file: plainFile, line: 3, text: 'not json at all' })]);
    ws.db.close();
  });

  it('for a .gz writes the stored lines around it to a temp file and opens that at the same line', async () => {
    const gz = join(dir, 'log.ndjson.gz');
    writeFileSync(gz, gzipSync(LINES.join('\n') + '\n'));
    const ws = await loadWorkspace([fileSource(gz)]);
    let opened: { file: string; jump: string } | undefined;
    const tmp = mkdtempSync(join(dir, 'ctx-'));
    const open = lineOpener(ws.db, {
      env: { PAGER: 'less' },
      tmpDir: () => tmp,
      spawn: (_c, args) => ((opened = { jump: args[3]!, file: args[4]! }), { status: 0 }),
    });
    expect(open({ file: gz, line: 4 })).toBeUndefined();
    expect(opened!.file.startsWith(tmp)).toBe(true);
    const lines = readFileSync(opened!.file, 'utf8').split('\n');
    // A header line, then log lines 1–4 (the rejected one too), each with its number in the log.
    const at = Number(/^\+(\d+)g$/.exec(opened!.jump)![1]);
    expect(lines[at - 1]).toBe(`      4  ${LINES[3]}`);
    expect(lines[3]).toBe('      3  not json at all');
    ws.db.close();
  });

  it('writes the lines it opens out of the store to a private folder (0700, files 0600) and removes it when disposed', async () => {
    const gz = join(dir, 'private.ndjson.gz');
    writeFileSync(gz, gzipSync(LINES.join('\n') + '\n'));
    const plainFile = join(dir, 'private-plain.ndjson');
    writeFileSync(plainFile, LINES.join('\n') + '\n');
    const ws = await loadWorkspace([fileSource(gz), fileSource(plainFile)]);
    const tmp = mkdtempSync(join(dir, 'tmpdir-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      let opened = '';
      const open = lineOpener(ws.db, { env: { EDITOR: 'ed' }, spawn: (_c, args) => ((opened = args[4]!), { status: 0 }) });
      // A plain file is opened where it is: nothing written (near miss).
      expect(open({ file: plainFile, line: 2 })).toBeUndefined();
      expect(readdirSync(tmp)).toEqual([]);
      expect(open({ file: gz, line: 2 })).toBeUndefined();
      expect(opened.startsWith(tmp)).toBe(true);
      expect(statSync(opened).mode & 0o777).toBe(0o600);
      expect(statSync(dirname(opened)).mode & 0o777).toBe(0o700);
      open.dispose();
      expect(existsSync(opened)).toBe(false);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      process.env.TMPDIR = saved;
      ws.db.close();
    }
  });

  it('a plain file whose path was rotated since is read from the store, not from the new file', async () => {
    const path = join(dir, 'rotating.ndjson');
    writeFileSync(path, LINES.join('\n') + '\n');
    const ws = await loadWorkspace([fileSource(path)], { copyLines: true }); // as tui loads
    writeFileSync(path, 'a new file\n');
    let file = '';
    const tmp = mkdtempSync(join(dir, 'ctx-'));
    const open = lineOpener(ws.db, { env: { EDITOR: 'ed' }, tmpDir: () => tmp, replaced: (f) => f === path, spawn: (_c, args) => ((file = args[4]!), { status: 0 }) });
    expect(open({ file: path, line: 2 })).toBeUndefined();
    expect(file.startsWith(tmp)).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain(`      2  ${LINES[1]}`);
    // A line the store knows nothing of cannot be opened, and says why.
    expect(open({ file: '<stdin>', line: 9 })).toMatch(/cannot be opened: the file is not on disk/);
    ws.db.close();
  });

  it('a one-off load keeps offsets, not lines: a rotated file is not quoted from the new file', async () => {
    const path = join(dir, 'rotated-offsets.ndjson');
    writeFileSync(path, LINES.join('\n') + '\n');
    const ws = await loadWorkspace([fileSource(path)]);
    expect(storedContext(ws.db, { file: path, line: 2 }).map((l) => l.text)).toEqual(LINES);
    writeFileSync(path, 'a new file\n');
    const open = lineOpener(ws.db, { env: { EDITOR: 'ed' }, tmpDir: () => mkdtempSync(join(dir, 'ctx-')), replaced: (f) => f === path, spawn: () => ({ status: 0 }) });
    expect(open({ file: path, line: 2 })).toMatch(/cannot be opened: the file is not on disk and the store keeps no text/);
    ws.db.close();
  });
});
