import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

// QA pass: what an on-call engineer reads when the input or the command is not
// what the tool expected. Each test names the bug it pins down.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-qa-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('explain -n', () => {
  // Was a bug: `explain samples/http-edge.ndjson -n 3` prints "#1  duplicate-tool-call": the number restarts at 1,
  // so it no longer matches the #3 the same finding has in `explain samples/http-edge.ndjson`.
  it('keeps the finding its number from the full explanation', async () => {
    const all = await cli('explain', 'samples/http-edge.ndjson');
    const third = /^#3 {2}(\S+)/m.exec(all.out);
    expect(third).not.toBeNull();
    const one = await cli('explain', 'samples/http-edge.ndjson', '-n', '3');
    expect(one.code).toBe(0);
    expect(one.out.startsWith(`#3  ${third![1]}`)).toBe(true);
  });
});

describe('evidence quotes show the fault', () => {
  // Was a bug: evidence lines are cut at a fixed length (160 chars in analyze, 240 in explain), and the
  // cut falls before the field that proves the fault. For cross-principal-replay in
  // samples/writers.ndjson the upgrade on line 17 ends with "principal":"tok:mallory"; both
  // `analyze` and `explain --rule cross-principal-replay` quote it as `…"conn":"tcp-9","pri…`.
  // rules.md: "someone reading only those lines must see the fault".
  it('explain quotes the principal the session was replayed to', async () => {
    const r = await cli('explain', 'samples/writers.ndjson', '--rule', 'cross-principal-replay');
    const quote = r.out.split('\n').find((l) => l.includes('samples/writers.ndjson:17'));
    expect(quote).toBeDefined();
    expect(quote).toContain('tok:mallory');
  });
});

describe('a truncated .gz export', () => {
  // Was a bug: a .gz cut short (a copy taken while the export was still being written) loses every line
  // that did decompress: `analyze` reports "0 records" and "unusable: gzip: unexpected end of file",
  // naming no line. README: "Bad input loses nothing"; the message should name the file, the line and why.
  it('keeps the lines before the cut, and says after which line the file ends', async () => {
    const text = readFileSync('samples/writers.ndjson', 'utf8');
    const gz = gzipSync(Buffer.from(text.repeat(1)));
    // Long enough that the first lines decompress, cut before the gzip trailer.
    const cut = gz.subarray(0, Math.floor(gz.length * 0.8));
    const file = join(dir, 'export.ndjson.gz');
    writeFileSync(file, cut);
    const r = await cli('analyze', file, '--format', 'json', '--fail-on', 'never');
    expect(r.code).toBe(2); // still unusable as a whole: the gate must not pass silently
    const report = JSON.parse(r.out) as { summary: { records: number } };
    expect(report.summary.records).toBeGreaterThan(0);
    expect(r.err).toMatch(/line \d+/);
  });
});

describe('query with a misspelled query name', () => {
  // Was a bug: `resumescope query upgrade-decision samples/` (no trailing s) answers
  // `SQL: near "upgrade": syntax error`: the name is run as SQL. A word that is no query
  // and no SQL should say there is no such named query and point at --list.
  it('says there is no such named query', async () => {
    const r = await cli('query', 'upgrade-decision', 'samples/clean.ndjson');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--list/);
  });

  it('points a rule judged in its module (no rules/<id>.sql) at its module and the facts it asks', async () => {
    const r = await cli('query', 'resume-after-end', 'samples/clean.ndjson');
    expect(r.code).toBe(2);
    expect(r.err).toContain('"resume-after-end" is a rule judged in its module (src/detect/rules/resume-after-end.ts)');
    // The fact whose header names it: the session's state at each upgrade.
    expect(r.err).toContain('facts/session-state-at-upgrade');
    expect(r.err).toContain('resumescope explain resume-after-end');
  });

  it('near miss: a rule with its own SQL runs it, and a word that is no rule is no named query', async () => {
    expect((await cli('query', 'dual-writer', 'samples/clean.ndjson')).code).toBe(0);
    const r = await cli('query', 'resume-after-ends', 'samples/clean.ndjson');
    expect(r.err).toContain('no named query "resume-after-ends"');
  });
});
