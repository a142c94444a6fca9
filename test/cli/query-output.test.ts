import { describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

// What `query` writes for the values a table hides (review rv55, item 9): NULL against '',
// a result of no rows, a cell wider than the table's cut, a blob, an integer past 2^53.

const LOG = 'samples/clean.ndjson';

describe('query output', () => {
  it('the table shows NULL as <NULL>, an empty string as nothing', async () => {
    const r = await cli('query', "SELECT NULL AS n, '' AS e, 'x' AS x", LOG);
    expect(r.out.split('\n')[2]).toBe('<NULL>     x');
  });

  it('near miss: a table of values has no <NULL>', async () => {
    const r = await cli('query', "SELECT 'NUL' AS n, 0 AS z", LOG);
    expect(r.out).not.toContain('<NULL>');
    expect(r.out.split('\n')[2]).toBe('NUL  0');
  });

  it('CSV writes NULL as an empty cell and an empty string as "" (PostgreSQL CSV convention)', async () => {
    const r = await cli('query', "SELECT NULL AS n, '' AS e", LOG, '-f', 'csv');
    expect(r.out).toBe('n,e\n,""\n');
  });

  it('CSV of no rows still has its header line, from the statement', async () => {
    expect((await cli('query', 'rejected', LOG, '-f', 'csv')).out).toBe('file,line,reason,text\n');
    expect((await cli('query', 'SELECT 1 AS a, 2 AS b WHERE 0', LOG, '-f', 'csv')).out).toBe('a,b\n');
  });

  it('near miss: JSON of no rows is [], the table says so', async () => {
    expect(JSON.parse((await cli('query', 'SELECT 1 AS a WHERE 0', LOG, '-f', 'json')).out)).toEqual([]);
    expect((await cli('query', 'SELECT 1 AS a WHERE 0', LOG)).out).toBe('(no rows)\n');
  });

  it('--wide shows a long cell whole; without it the cell is cut at 80 with …', async () => {
    const sql = "SELECT printf('%.100c', 'y') AS long";
    const cut = (await cli('query', sql, LOG)).out.split('\n')[2]!;
    expect(cut).toBe(`${'y'.repeat(79)}…`);
    const whole = (await cli('query', sql, LOG, '--wide')).out.split('\n')[2]!;
    expect(whole).toBe('y'.repeat(100));
  });

  it('a blob is its hex, as an SQL literal, in every format', async () => {
    const sql = "SELECT x'00ff' AS b, '00ff' AS t";
    expect(JSON.parse((await cli('query', sql, LOG, '-f', 'json')).out)).toEqual([{ b: "x'00ff'", t: '00ff' }]);
    expect((await cli('query', sql, LOG, '-f', 'csv')).out).toBe("b,t\nx'00ff',00ff\n");
    expect((await cli('query', sql, LOG)).out.split('\n')[2]).toBe("x'00ff'  00ff");
  });

  it('an integer past 2^53 is exact in every format', async () => {
    const sql = 'SELECT 9007199254740993 AS big, -9223372036854775808 AS least';
    expect((await cli('query', sql, LOG, '-f', 'json')).out).toMatch(/"big": 9007199254740993,\s+"least": -9223372036854775808\s/);
    expect((await cli('query', sql, LOG, '-f', 'csv')).out).toBe('big,least\n9007199254740993,-9223372036854775808\n');
    expect((await cli('query', sql, LOG)).out.split('\n')[2]).toBe('9007199254740993  -9223372036854775808');
  });

  it('near miss: a small integer and a real stay JSON numbers', async () => {
    expect(JSON.parse((await cli('query', 'SELECT 5 AS n, 2.5 AS r', LOG, '-f', 'json')).out)).toEqual([{ n: 5, r: 2.5 }]);
  });
});
