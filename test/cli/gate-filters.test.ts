import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from './run-cli.js';

// A typo in a filter must not pass the gate with "no findings".

describe('analyze/explain: a filter that names what the log does not have', () => {
  it('--session absent from the log is a usage error (exit 2) that names the session meant', async () => {
    const r = await cli('analyze', 'samples/writers.ndjson', '--session', 'S-1O01');
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain('session S-1O01 is not in the log (did you mean S-1001');
  });

  it('--session like none of the log\'s lists the sessions it has', async () => {
    const r = await cli('analyze', 'samples/writers.ndjson', '--session', 'zzzzzzzzzz');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/session zzzzzzzzzz is not in the log \(sessions: .*S-1001/);
  });

  it('--session the log has still filters and gates as before', async () => {
    const r = await cli('analyze', 'samples/writers.ndjson', '--session', 'S-1001');
    expect(r.code).toBe(1);
    expect(r.out).toContain('dual-writer');
  });

  it('explain --session absent from the log exits 2 too', async () => {
    const r = await cli('explain', 'samples/writers.ndjson', '--session', 'nope');
    expect(r.code).toBe(2);
    expect(r.err).toContain('session nope is not in the log');
  });

  it('--rule with a typo exits 2 and suggests the rule meant', async () => {
    const r = await cli('analyze', 'samples/writers.ndjson', '--rule', 'dual-writr');
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown rule "dual-writr" (did you mean dual-writer?)');
  });
});

describe('the gate messages', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'resumescope-gate-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('analyze --help shows the default of --fail-on', async () => {
    const r = await cli('analyze', '--help');
    expect(r.out + r.err).toMatch(/--fail-on <severity>[\s\S]*default: error/);
  });

  it('names the first 10 inputs with rejected lines, then counts the rest, so that a folder of them does not bury the rest', async () => {
    const folder = (n: number) => {
      const d = join(dir, `f${n}`);
      mkdirSync(d);
      // each file its own record and bad line: the same bytes twice would be one file read twice, and the same
      // lines in every file repeats of the first file's (read once), leaving the others no record of their own
      const own = (i: number) => `{"ts":"2026-11-09T11:00:00.${String(i).padStart(3, '0')}Z","kind":"session.created","session":"own-${i}"}\n`;
      for (let i = 0; i < n; i++) writeFileSync(join(d, `node-${String(i).padStart(2, '0')}.ndjson`), own(i) + readFileSync('samples/clean.ndjson', 'utf8') + `not json ${i}\n`);
      return d;
    };
    const many = await cli('analyze', folder(13), '--fail-on', 'never');
    expect(many.err.match(/lines rejected/g)).toHaveLength(10);
    expect(many.err).toContain('resumescope: and 3 more inputs with rejected lines (3 in all); resumescope query rejected on the same inputs lists every one\n');
    // near miss: ten are all named, with no count after them
    const ten = await cli('analyze', folder(10), '--fail-on', 'never');
    expect(ten.err.match(/lines rejected/g)).toHaveLength(10);
    expect(ten.err).not.toContain('more inputs with rejected lines');
  });

  it('rejected lines: with a temporary database it says the query that lists them, with --db where they are', async () => {
    const log = join(dir, 'bad.ndjson');
    writeFileSync(log, readFileSync('samples/clean.ndjson', 'utf8') + 'not json\n');
    const temp = await cli('analyze', log, '--fail-on', 'never');
    expect(temp.err).toContain(`list them: resumescope query rejected ${log}`);
    expect(temp.err).not.toContain('they are kept');
    // the query it names does list the line
    expect((await cli('query', 'rejected', log)).out).toContain('not json');
    const db = join(dir, 'kept.db');
    const kept = await cli('analyze', log, '--db', db, '--fail-on', 'never');
    expect(kept.err).toContain(`they are kept: resumescope query rejected --db ${db}`);
  });
});
