import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RECORD_KINDS } from '../../src/model/record.js';
import { RULE_IDS, ruleOf } from '../../src/detect/rules/index.js';
import { explainFinding } from '../../src/render/explain.js';
import { FINDINGS, LOG_LINES, lineText } from './fixture.js';

const docs = readFileSync(fileURLToPath(new URL('../../docs/rules.md', import.meta.url)), 'utf8');
const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** The text of docs/rules.md from `## <id>` up to the next rule heading. */
function docSection(id: string): string | undefined {
  const parts = docs.split(/^## /m);
  return parts.find((p) => p.split('\n')[0]!.trim() === id);
}

describe('explanations', () => {
  it('has non-empty meaning, whyItBreaks and shouldHave for every rule id', () => {
    for (const id of RULE_IDS) {
      const { meaning, whyItBreaks, shouldHave } = ruleOf(id).explanation;
      // A sentence or more each: what `explain`, SARIF's help and the docs show for the rule.
      for (const [field, text] of Object.entries({ meaning, whyItBreaks, shouldHave })) expect(text.trim().length, `${id}: explanation.${field} (more than 40 characters)`).toBeGreaterThan(40);
    }
  });

  it('docs/rules.md examples are records of the log format, a positive and a near miss per rule', () => {
    for (const id of RULE_IDS) {
      const blocks = [...docSection(id)!.matchAll(/```ndjson\n([\s\S]*?)```/g)].map((m) => m[1]!.trim().split('\n'));
      expect(blocks, id).toHaveLength(2);
      for (const line of blocks.flat()) {
        const record = JSON.parse(line);
        expect(Number.isNaN(Date.parse(record.ts)), line).toBe(false);
        expect(RECORD_KINDS, line).toContain(record.kind);
      }
    }
  });
});

describe('explainFinding', () => {
  it('tells what happened with the witness lines in order, why it breaks the boundary and what to do', () => {
    const f = FINDINGS[4]!; // dual-writer
    const text = explainFinding(f, lineText);
    expect(text.split('\n')[0]).toBe('dual-writer (error): An upgrade superseded a stream that was neither closed nor fenced: two writers.');
    expect(text).toContain('Session S2, at 2026-11-09T10:00:09.000Z.');
    expect(squash(text)).toContain(f.message);
    const first = text.indexOf(`server-a.ndjson:7  ${LOG_LINES['server-a.ndjson']![6]}`);
    const second = text.indexOf(`server-b.ndjson:4  ${LOG_LINES['server-b.ndjson']![3]}`);
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(first);
    expect(squash(text)).toContain(ruleOf('dual-writer').explanation.whyItBreaks);
    expect(squash(text)).toContain(ruleOf('dual-writer').explanation.shouldHave);
    expect(text.indexOf('Why this breaks')).toBeGreaterThan(second);
  });

  // A finding whose message names a revision that lacks what the rule's general advice relies on.
  it('gives the advice that fits the revision the message names, where the rule has one', () => {
    const f = { ...FINDINGS[4]!, rule: 'event-id-without-session', session: null };
    const stateless = squash(explainFinding({ ...f, message: 'accepted a resume (status 200) carrying Last-Event-ID 5 at protocol 2026-07-28: …' }, lineText));
    expect(stateless).toContain('What the server should have done Ignore Last-Event-ID on a request at 2026-07-28 or later');
    expect(stateless).not.toContain(ruleOf('event-id-without-session').explanation.shouldHave);
    const legacy = squash(explainFinding({ ...f, message: 'accepted a resume (status 200) carrying Last-Event-ID 5 but no Mcp-Session-Id: …' }, lineText));
    expect(legacy).toContain(`What the server should have done ${ruleOf('event-id-without-session').explanation.shouldHave}`);
  });

  it('wraps prose for a terminal but quotes log lines whole', () => {
    const text = explainFinding(FINDINGS[0]!, lineText);
    const prose = text.split('\n').filter((l) => !l.includes('.ndjson:'));
    for (const l of prose) expect(l.length).toBeLessThanOrEqual(100);
    expect(text).toContain(LOG_LINES['server-b.ndjson']![1]);
  });

  it('says what a finding follows from where its session was one a node lost without a log line, after the node last logged it', () => {
    const f = FINDINGS[4]!; // dual-writer, session S2, at 10:00:09
    const loss = (sessions: { session: string; after_ms: number }[]) => ({
      node: 'b', sessions: sessions.length, not_found: 3, from_ms: Date.parse('2026-11-09T10:00:08.000Z'), until_ms: Date.parse('2026-11-09T10:00:08.500Z'),
      last_seen_ms: Date.parse('2026-11-09T10:00:07.000Z'), evidence: [], lost: sessions,
    });
    const before = Date.parse('2026-11-09T10:00:07.000Z');
    const two = squash(explainFinding(f, lineText, undefined, [loss([{ session: 'S1', after_ms: before }, { session: 'S2', after_ms: before }])]));
    expect(two).toContain('What it follows from The session was lost without a log line, with others: b answered 404 for 2 sessions it had created and never ended (3 404s)');
    expect(two.indexOf('What it follows from')).toBeLessThan(two.indexOf('Why this breaks'));
    const one = squash(explainFinding(f, lineText, undefined, [loss([{ session: 'S2', after_ms: before }])]));
    expect(one).toContain('The session was lost without a log line: b answered 404 for 1 session');
    // another session's loss, a loss after the finding, no losses: nothing said
    for (const losses of [[loss([{ session: 'S1', after_ms: before }])], [loss([{ session: 'S2', after_ms: Date.parse(f.at) }])], [], undefined]) {
      expect(explainFinding(f, lineText, undefined, losses)).not.toContain('What it follows from');
    }
  });

  it('still explains a finding whose lines cannot be read', () => {
    const text = explainFinding(FINDINGS[3]!, () => undefined);
    expect(text).toContain('server-b.ndjson:3');
    expect(text).toContain('Session (no session)');
    expect(squash(text)).toContain(ruleOf('event-id-without-session').explanation.shouldHave);
  });
});
