import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/render/markdown.js';
import { FINDINGS, makeReport } from './fixture.js';

// A request id, a Last-Event-ID or a node name is whatever a client or a deployment chose, and a
// finding's message quotes it into a PR comment posted under the CI bot's name.
const HOSTILE = 'see https://evil.example/login or www.evil.example/x or ops@evil.example, HTTPS://X.EXAMPLE WWW.X.EXAMPLE mailto:a@b.example, ping @octocat about #1 and org/repo#2';

function reportQuoting(text: string) {
  const report = makeReport([{ ...FINDINGS[4]!, message: `attach opened g8 (request ${text})` }]);
  report.not_knowable = [{ rule: 'orphaned-request', session: 'S@x', reason: `proxy log: ${text}` }];
  report.summary.nodes = { [`b ${text}`]: { records: 8, skew_ms: -40 } };
  return report;
}

/** GitHub's own GFM parser, where installed (`apt-get install cmark-gfm`); the checks below do not need it. */
const cmark = spawnSync('cmark-gfm', ['--version']).status === 0;

describe('markdown: log text never becomes a link, a mention or an issue reference', () => {
  const out = renderMarkdown(reportQuoting(HOSTILE));

  it('breaks each with a <wbr> inside it, in messages, not-knowable reasons and sessions, and node names', () => {
    const broken =
      'see https:<wbr>//evil.example/login or www<wbr>.evil.example/x or ops@<wbr>evil.example, HTTPS:<wbr>//X.EXAMPLE WWW<wbr>.X.EXAMPLE mailto:a@<wbr>b.example, ping @<wbr>octocat about #<wbr>1 and org/repo#<wbr>2';
    expect(out).toContain(`attach opened g8 (request ${broken})`);
    expect(out).toContain(`- \`orphaned-request\`: proxy log: ${broken} (1 session: <code>S@<wbr>x</code>)`);
    expect(out).toContain(`Clock skew: causality shows the clock of b ${broken} at least 40 ms behind`);
    // Nothing left whole outside code: no scheme with its //, no www., no @ or # with what follows it.
    const prose = out.replace(/^(`{3,})text\n[\s\S]*?\n\1$/gm, '');
    expect(prose).not.toMatch(/:\/\/|www\.|[@#][\p{L}\p{N}]/iu);
  });

  it('leaves evidence in its code block as logged: code is never linked', () => {
    const report = makeReport([{ ...FINDINGS[4]!, evidence: [{ file: 'a.ndjson', line: 1 }] }]);
    const quoted = renderMarkdown(report, { lineText: () => `{"id":"${HOSTILE}"}`, raw: true });
    expect(quoted).toContain(`\`\`\`text\na.ndjson:1  {"id":"${HOSTILE}"}\n\`\`\``);
  });

  it('leaves its own words alone, and escapes GitHub math', () => {
    const plain = renderMarkdown(makeReport());
    expect(plain).not.toContain('<wbr>');
    expect(renderMarkdown(makeReport([{ ...FINDINGS[4]!, message: 'cost $x^2$ here' }]))).toContain('cost \\$x^2\\$ here');
  });

  it.skipIf(!cmark)('renders through cmark-gfm with autolinks on without a single link', () => {
    const html = spawnSync('cmark-gfm', ['--unsafe', '-e', 'autolink', '-e', 'table', '-e', 'tagfilter'], { input: out, encoding: 'utf8' });
    expect(html.status).toBe(0);
    expect(html.stdout).toContain('evil.example/login');
    expect(html.stdout).not.toMatch(/<a |<img /);
    // The break shows nothing: the text reads as logged once tags are taken out.
    expect(html.stdout.replace(/<wbr>/g, '')).toContain('see https://evil.example/login or www.evil.example/x or ops@evil.example');
  });
});
