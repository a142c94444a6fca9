import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { cli } from '../cli/run-cli.js';
import { RAW_HOSTILE } from './hostile-logs.js';

// `query -f csv` on hostile logs (review rv55, item 2): a log value is hostile wherever it is
// shown, a CSV file on a terminal (`cat`, `less`) or in a spreadsheet (a formula) included.

let dir: string;
let log: string;

const CLEAR_AND_LINK = 'S\u001b[2J\u001b]8;;http://evil/\u001b\\click\u001b]8;;\u001b\\';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-csv-'));
  log = join(dir, 'h.ndjson');
  const lines = [
    { ts: '2026-11-09T10:00:00.000Z', kind: 'session.created', session: CLEAR_AND_LINK, principal: 'a' },
    { ts: '2026-11-09T10:00:02.000Z', kind: 'upgrade', session: 'p', last_event_id: '=HYPERLINK("http://evil")', stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0, reemitted: 0 },
  ];
  writeFileSync(log, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function onTerminal(...args: string[]): Promise<string> {
  let out = '';
  await main(['node', 'resumescope', ...args], { out: (s) => void (out += s), err: () => undefined, isTty: true });
  return out;
}

describe('query -f csv', () => {
  it('escapes control characters as the table does: no escape sequence reaches a terminal', async () => {
    const r = await cli('query', 'SELECT session, last_event_id FROM records ORDER BY id', log, '-f', 'csv');
    expect(r.code).toBe(0);
    expect(RAW_HOSTILE.exec(r.out)).toBeNull();
    expect(r.out).toContain('S\\u001b[2J\\u001b]8;;http://evil/\\u001b\\click');
  });

  it('neutralises a cell a spreadsheet would run as a formula with a leading quote (OWASP)', async () => {
    const r = await cli('query', 'SELECT last_event_id FROM records WHERE kind = \'upgrade\'', log, '-f', 'csv');
    expect(r.out).toBe('last_event_id\n"\'=HYPERLINK(""http://evil"")"\n');
  });

  it('every formula lead: = + - @ tab and carriage return', async () => {
    const sql = "SELECT '+1' AS a, '-2+3' AS b, '@SUM(A1)' AS c, char(9) || 'x' AS d, char(13) || 'y' AS e";
    const r = await cli('query', sql, log, '-f', 'csv');
    expect(r.out.split('\n')[1]).toBe("'+1,'-2+3,'@SUM(A1),'\\u0009x,'\\u000dy");
  });

  it('near miss: a formula character inside a value, a number and a plain value are left as they are', async () => {
    const r = await cli('query', "SELECT 'a=b' AS a, -1 AS n, -1.5 AS f, 'plain' AS p, 'x,y' AS q", log, '-f', 'csv');
    expect(r.out).toBe('a,n,f,p,q\na=b,-1,-1.5,plain,"x,y"\n');
  });

  it('is the same whether stdout is a terminal or a file', async () => {
    const args = ['query', 'SELECT session, last_event_id FROM records ORDER BY id', log, '-f', 'csv'];
    expect(await onTerminal(...args)).toBe((await cli(...args)).out);
  });
});
