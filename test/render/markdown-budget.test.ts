import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/model/finding.js';
import { EVIDENCE_SHOWN, MARKDOWN_BUDGET, renderMarkdown } from '../../src/render/markdown.js';
import { cli } from '../cli/run-cli.js';
import { FINDINGS, makeReport } from './fixture.js';

/** A PR comment refuses a body longer than this (a job summary refuses more than 1 MiB). */
const PR_COMMENT_LIMIT = 65_536;

/** A 404 storm's finding cites every POST: `lines` evidence lines of `width` characters each. */
function storm(session: string, lines: number): Finding {
  return {
    rule: '404-storm',
    severity: 'warning',
    session,
    at: '2026-11-09T10:01:04.000Z',
    message: `${lines} POSTs for ${session} got 404`,
    evidence: Array.from({ length: lines }, (_, i) => ({ file: 'storm.ndjson', line: i + 1 })),
  };
}
const wideLine = () => `{"kind":"call","status":404,"note":"${'x'.repeat(300)}"}`;

describe('markdown: a finding citing many lines', () => {
  it(`quotes the first ${EVIDENCE_SHOWN} and counts the rest, saying which formats cite every one`, () => {
    const out = renderMarkdown(makeReport([storm('S3', 400)]), { lineText: wideLine, raw: true });
    expect(out.match(/^storm\.ndjson:\d+ /gm)).toHaveLength(EVIDENCE_SHOWN);
    expect(out).toContain(`storm.ndjson:${EVIDENCE_SHOWN}  `);
    expect(out).not.toContain(`storm.ndjson:${EVIDENCE_SHOWN + 1}  `);
    expect(out).toContain('…and 390 more evidence lines; `--format json|sarif|junit` cite every one.');
  });

  it(`quotes all of ${EVIDENCE_SHOWN} lines, and says nothing more`, () => {
    const out = renderMarkdown(makeReport([storm('S3', EVIDENCE_SHOWN)]), { lineText: wideLine, raw: true });
    expect(out.match(/^storm\.ndjson:\d+ /gm)).toHaveLength(EVIDENCE_SHOWN);
    expect(out).not.toContain('more evidence line');
  });
});

describe('markdown: the size budget', () => {
  const many = makeReport(Array.from({ length: 60 }, (_, i) => storm(`S-${String(i).padStart(3, '0')}`, 400)));

  it('details findings only while they fit, then counts the rest in the words that show them all', () => {
    const out = renderMarkdown(many, { lineText: wideLine, raw: true, budget: 12_000 });
    expect(out.length).toBeLessThanOrEqual(12_000);
    const shown = out.match(/<details>/g)?.length ?? 0;
    expect(shown).toBeGreaterThan(0);
    expect(out.match(/<\/details>/g)).toHaveLength(shown);
    expect(out).toContain(`…and ${60 - shown} more findings; see them all: \`--rule <rule> --max-findings 60 --format text\``);
    // The status line and the count table always; the not-knowable list and the notes after the findings too.
    expect(out.split('\n')[0]).toMatch(/^✅ \*\*resumescope\*\*: 60 findings \(60 warning\)/);
    expect(out).toContain('| `404-storm` | warning | 60 |');
    expect(out).toContain('- `orphaned-request`: proxy log');
    expect(out).toContain('2 rejected lines could not be read as records');
    // Every fence it opened is closed: a code block cut short would swallow the rest of a PR comment.
    expect((out.match(/^```/gm) ?? []).length % 2).toBe(0);
  });

  it(`stays within ${MARKDOWN_BUDGET} characters by default, a PR comment's limit with room to spare`, () => {
    const out = renderMarkdown(many, { lineText: wideLine, raw: true });
    expect(out.length).toBeLessThanOrEqual(MARKDOWN_BUDGET);
    expect(MARKDOWN_BUDGET).toBeLessThan(PR_COMMENT_LIMIT);
    expect(out).toMatch(/…and \d+ more findings; see them all/);
  });

  it('shows 50 findings that fit, as before, and counts past 50 alike', () => {
    const small = makeReport(Array.from({ length: 51 }, (_, i) => ({ ...FINDINGS[4]!, session: `S${i}` })));
    const out = renderMarkdown(small);
    expect(out.match(/<details>/g)).toHaveLength(50);
    expect(out).toContain('…and 1 more finding; see them all');
  });

  it('counts the not-knowable list in one line when listing it would leave no room', () => {
    const report = makeReport([FINDINGS[4]!]);
    report.not_knowable = Array.from({ length: 300 }, (_, i) => ({ rule: 'orphaned-request', session: `S${i}`, reason: `proxy log ${i}: ${'y'.repeat(100)}` }));
    const out = renderMarkdown(report, { budget: 6_000 });
    expect(out.length).toBeLessThanOrEqual(6_000);
    expect(out).toContain('**Not knowable**: 1 rule could not be judged in 300 sessions (not listed).');
    expect(out.match(/<details>/g)).toHaveLength(1);
    // With room to list it, it is listed.
    expect(renderMarkdown(report, { budget: 100_000 })).toContain('- `orphaned-request`: proxy log 0:');
  });

  it('names the first 20 unusable inputs and counts the rest', () => {
    const unusable = Array.from({ length: 25 }, (_, i) => ({ name: `bad-${i}.log`, reason: 'not one record line', file: true }));
    const out = renderMarkdown(makeReport([]), { unusable });
    expect(out).toContain('- <code>bad-19.log</code>: not one record line');
    expect(out).not.toContain('bad-20.log');
    expect(out).toContain('- …and 5 more: `--format text` names every one');
  });
});

describe('analyze --format markdown on a restart\'s 404 storm', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'resumescope-md-budget-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fits a PR comment, keeps its status line, and says how to see every finding', async () => {
    // 60 sessions, each with 30 tools/call POSTs answered 404 within a second: 60 404-storm findings of 30 lines each.
    const lines: string[] = [];
    for (let s = 0; s < 60; s++) {
      const session = `sess-${String(s).padStart(3, '0')}-${'0'.repeat(28)}`;
      lines.push(JSON.stringify({ ts: `2026-11-09T10:00:00.${String(s).padStart(3, '0')}Z`, kind: 'session.created', session, principal: 'tok:a', node: 'node-a' }));
      for (let i = 0; i < 30; i++) {
        const ts = new Date(Date.parse('2026-11-09T10:00:01.000Z') + i * 20).toISOString();
        lines.push(JSON.stringify({ ts, kind: 'call', session, rpc_id: `c${i}`, method: 'tools/call', tool: 'lookup', status: 404, executed: false, node: 'node-a' }));
      }
    }
    const log = join(dir, 'storm.ndjson');
    writeFileSync(log, `${lines.join('\n')}\n`);
    for (const raw of [[], ['--raw']]) {
      const r = await cli('analyze', log, '--format', 'markdown', '--fail-on', 'never', ...raw);
      expect(r.code).toBe(0);
      expect(r.out.length).toBeLessThanOrEqual(MARKDOWN_BUDGET);
      expect(r.out.split('\n')[0]).toMatch(/^✅ \*\*resumescope\*\*: 60 findings/);
      expect(r.out).toContain('…and 20 more evidence lines; `--format json|sarif|junit` cite every one.');
      expect(r.out).toMatch(/…and \d+ more findings; see them all: `--rule <rule> --max-findings 60 --format text`, `--session <id>`, or `--format json\|sarif\|junit`\.\n$/);
    }
  });
});
