import { describe, expect, it } from 'vitest';
import { analyzeLines, at, type LogLine } from '../helpers/logs.js';
import { renderText } from '../../src/render/text.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { renderHtml } from '../../src/render/html/index.js';
import { cli } from '../cli/run-cli.js';
import { lossHeadline, lossNotes } from '../../src/render/node-losses.js';
import type { NodeLoss } from '../../src/model/finding.js';

// The human formats open with the sessions a node lost without a log line (detect/node-losses.ts):
// one line per loss, the two log lines that bound it, and the findings on those sessions since, so
// that a reader sees one restart before reading its dozens of findings one by one.

describe('lossHeadline under a shared session store', () => {
  const loss: NodeLoss = { node: 'mcp-b', sessions: 1, not_found: 1, from_ms: Date.parse(at(6000)), until_ms: Date.parse(at(6000)), last_seen_ms: Date.parse(at(5000)), evidence: [], lost: [] };

  it('names the node that created the sessions and the one that last logged them, not the answering node', () => {
    expect(lossHeadline({ ...loss, created_on: ['mcp-a'], last_seen_node: 'mcp-a' })).toBe(
      `mcp-b answered 404 for 1 session created on mcp-a and never ended (1 404), at ${at(6000)}; mcp-a last logged one of them at ${at(5000)}, 1 s before the first 404`,
    );
  });

  it('near miss: the answering node created and last logged them itself', () => {
    expect(lossHeadline(loss)).toBe(`mcp-b answered 404 for 1 session it had created and never ended (1 404), at ${at(6000)}; it last logged one of them at ${at(5000)}, 1 s before the first 404`);
  });
});

describe('analyze: sessions lost without a log line, in the text report', () => {
  it('comes before the findings, bounded by the node\'s last record of the sessions and the first 404, with what followed', async () => {
    const r = await cli('analyze', 'samples/node-restart.ndjson');
    const lines = r.out.split('\n');
    const title = lines.findIndex((l) => l.startsWith('SESSIONS LOST WITHOUT A LOG LINE'));
    expect(title).toBe(2);
    expect(lines.findIndex((l) => l === 'WARNING')).toBeGreaterThan(title);
    expect(lines[title + 1]).toBe(
      '  mcp-b answered 404 for 2 sessions it had created and never ended (6 404s), from 2026-11-09T10:00:24.100Z to 2026-11-09T10:00:24.300Z; it last logged one of them at 2026-11-09T10:00:18.000Z, 6100 ms before the first 404',
    );
    expect(lines[title + 2]).toMatch(/^ {6}samples\/node-restart\.ndjson:17 {2}10:00:18\.000 request\.sent session=b0b-102/);
    expect(lines[title + 3]).toMatch(/^ {6}samples\/node-restart\.ndjson:18 {2}10:00:24\.100 upgrade session=b0b-101 reject 404/);
    expect(lines[title + 4]).toBe('    findings on these sessions since: 1 404-storm, 1 engine-divergence');
  });

  it('counts only the findings the report shows (--rule), and leaves out a node that logged its sessions\' end', async () => {
    const narrowed = await cli('analyze', 'samples/node-restart.ndjson', '--rule', '404-storm');
    expect(narrowed.out).toContain('    findings on these sessions since: 1 404-storm\n');
    const evicted = await cli('analyze', 'samples/http-edge.ndjson', '--fail-on', 'never');
    expect(evicted.out).toContain('404-storm');
    expect(evicted.out).not.toContain('SESSIONS LOST');
  });
});

describe('a loss other nodes answered: the creating node fell silent', () => {
  it('the SDK restart sample (node mcp-1, then mcp-1-restarted) says when mcp-1 went quiet and who answered 404', async () => {
    const r = await cli('analyze', 'samples/sdk/sdk-restart.ndjson');
    const lines = r.out.split('\n');
    const title = lines.findIndex((l) => l.startsWith('SESSIONS LOST WITHOUT A LOG LINE'));
    expect(lines[title + 1]).toBe(
      '  mcp-1 logged nothing after 2026-11-29T11:19:04.859Z, and 1 session it had created and never ended got 404 from mcp-1-restarted (2 404s), at 2026-11-29T11:19:04.962Z',
    );
    // its last line was the session's own: two lines, not three
    expect(lines[title + 2]).toMatch(/^ {6}samples\/sdk\/sdk-restart\.ndjson:15 {2}11:19:04\.859 stream\.closed/);
    expect(lines[title + 3]).toMatch(/^ {6}samples\/sdk\/sdk-restart\.ndjson:16 {2}11:19:04\.962 upgrade/);
    expect(lines[title + 4]).toBe('');
  });

  it('names the node itself among those that answered, and the sessions\' last record where it came before the node\'s last line', () => {
    const loss: NodeLoss = {
      node: 'a', sessions: 3, not_found: 4, from_ms: Date.parse(at(5000)), until_ms: Date.parse(at(9000)), last_seen_ms: Date.parse(at(1000)),
      silent_after_ms: Date.parse(at(6000)), answered_by: ['a', 'b', null], evidence: [], lost: [],
    };
    expect(lossHeadline(loss)).toBe(
      'a logged nothing after 2026-11-09T10:00:06.000Z, and 3 sessions it had created and never ended got 404 from b, a node the log does not name and a itself (4 404s), ' +
        'from 2026-11-09T10:00:05.000Z to 2026-11-09T10:00:09.000Z; it last logged one of them at 2026-11-09T10:00:01.000Z, 4 s before the first 404',
    );
  });
});

describe('analyze: the losses on stderr beside a report with no place for them', () => {
  it('json, sarif and junit keep their shape, and stderr tells of the loss in a line of its own', async () => {
    for (const format of ['json', 'sarif', 'junit']) {
      const r = await cli('analyze', 'samples/node-restart.ndjson', '--format', format, '--fail-on', 'never');
      expect(r.err).toBe(
        'resumescope: sessions lost without a log line: mcp-b answered 404 for 2 sessions it had created and never ended (6 404s), from 2026-11-09T10:00:24.100Z to 2026-11-09T10:00:24.300Z; it last logged one of them at 2026-11-09T10:00:18.000Z, 6100 ms before the first 404\n',
      );
      expect(r.out).not.toContain('lost without a log line');
    }
  });

  it('not where the report itself opens with the losses, nor where no session was lost', async () => {
    for (const format of ['text', 'markdown', 'html']) {
      expect((await cli('analyze', 'samples/node-restart.ndjson', '--format', format, '--fail-on', 'never')).err).toBe('');
    }
    expect((await cli('analyze', 'samples/http-edge.ndjson', '--format', 'json', '--fail-on', 'never')).err).toBe('');
  });
});

describe('more losses than are shown', () => {
  it('five are shown in full; the rest are counted, with the command that lists them, quoted only in markdown', async () => {
    const lines: LogLine[] = [];
    for (let n = 1; n <= 7; n++) {
      const node = `mcp-${n}`;
      lines.push(
        { ts: at(n * 100), kind: 'session.created', session: `S${n}`, node, principal: `tok:${n}` },
        { ts: at(100_000 * n), kind: 'upgrade', session: `S${n}`, last_event_id: 1, stream: 'g1', decision: 'reject', status: 404, reason: 'session_not_found', node },
      );
    }
    const report = await analyzeLines(lines);
    expect(report.summary.lost_sessions).toHaveLength(7);
    const more = '… and 2 more losses: resumescope query lost-sessions lists every lost session';
    const text = renderText(report);
    expect(text.match(/^ {2}mcp-\d answered 404/gm)).toHaveLength(5);
    expect(text).toContain(`\n  ${more}\n`);
    expect(renderMarkdown(report)).toContain('… and 2 more losses: `resumescope query lost-sessions` lists every lost session');
    const notes = lossNotes(report);
    expect(notes).toHaveLength(6);
    expect(notes[5]).toBe(`resumescope: ${more}\n`);
  });
});

describe('explain: what a finding on a lost session follows from', () => {
  it('each finding of the restart sample names the loss; a session the node did not lose gets no such section', async () => {
    const r = await cli('explain', 'samples/node-restart.ndjson');
    const parts = r.out.split(/\n(?=#\d+ {2})/);
    expect(parts).toHaveLength(2);
    for (const part of parts) expect(part).toMatch(/What it follows from\n {2}The session was lost without a log line, with others: mcp-b answered 404 for\n {2}2 sessions/);
    const other = await cli('explain', 'samples/http-edge.ndjson');
    expect(other.out).toContain('404-storm');
    expect(other.out).not.toContain('What it follows from');
  });
});

describe('sessions lost without a log line, in every human format, from hostile node names', () => {
  const node = '<img src=x onerror=alert(1)>\u001b[2J';
  const lines: LogLine[] = [
    { ts: at(0), kind: 'session.created', session: 'S1', node, principal: 'tok:a' },
    { ts: at(500), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1, rpc_kind: 'notification', node },
    { ts: at(4000), kind: 'upgrade', session: 'S1', last_event_id: 1, stream: 'g1', decision: 'reject', status: 404, reason: 'session_not_found', node },
  ];

  it('text and markdown show the loss with the node made printable, html escapes it', async () => {
    const report = await analyzeLines(lines);
    const text = renderText(report);
    expect(text).toContain('SESSIONS LOST WITHOUT A LOG LINE');
    expect(text).toContain('for 1 session it had created and never ended (1 404), at 2026-11-09T10:00:04.000Z');
    expect(text).toContain('findings on these sessions since: 1 engine-divergence');
    expect(text).not.toContain('\u001b');
    const md = renderMarkdown(report);
    expect(md).toContain('**Sessions lost without a log line**');
    expect(md).not.toContain('<img');
    const html = renderHtml(report);
    expect(html).toContain('<h3>Sessions lost without a log line</h3><p class="note">Answered 404 by the node that created them');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img src=x');
  });

  it('nothing is said where no session was lost', async () => {
    const report = await analyzeLines(lines.slice(0, 2));
    expect(renderText(report)).not.toContain('LOST');
    expect(renderMarkdown(report)).not.toContain('lost');
    expect(renderHtml(report)).not.toContain('class="losses"');
  });
});
