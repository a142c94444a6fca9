import { describe, expect, it } from 'vitest';
import type { RuleModule } from '../../src/detect/rule.js';
import { RULES } from '../../src/detect/rules/index.js';
import { detectOptionsOf, runRules } from '../../src/detect/run.js';
import { detect } from '../../src/pipeline/derived.js';
import type { DetectorOutput, RawFinding } from '../../src/detect/types.js';
import { workspaceOf } from '../helpers/logs.js';

// A rule whose findings grow with the log hands them over in batches (RuleContext.handOver), so that a
// run holds a batch, not all of them. The report must not tell the difference.

const finding = (rule: string, n: number): RawFinding => ({ rule, session: 'S1', atMs: Date.parse('2026-11-09T10:00:00Z') + n, message: `finding ${n}`, evidenceIds: [1] });

/** A rule reporting `n` findings, handing them over every `batch` (0: all returned at once). */
const counting = (id: string, n: number, batch: number, foreign = false): RuleModule =>
  ({
    ...RULES[0]!,
    id,
    detect(ctx) {
      let held: RawFinding[] = [];
      for (let i = 0; i < n; i++) {
        held.push(finding(foreign && i === n - 1 ? 'someone-else' : id, i));
        if (batch > 0 && held.length === batch) {
          ctx.handOver(held);
          held = [];
        }
      }
      return { findings: held, notKnowable: [] };
    },
  }) as RuleModule;

describe('findings handed over before a rule is done', () => {
  it('make the report the rule makes returning them all at once', async () => {
    const ws = await workspaceOf([{ ts: '2026-11-09T10:00:00Z', kind: 'session.created', session: 'S1' }]);
    const whole = detect(ws.db, { rules: [counting('silent-truncation', 25, 0), counting('dual-writer', 3, 0)] });
    const batched = detect(ws.db, { rules: [counting('silent-truncation', 25, 10), counting('dual-writer', 3, 2)] });
    expect(whole.findings).toHaveLength(28);
    expect(batched).toEqual(whole);
  });

  it('come first, in the order handed over, where the caller takes only the finished output', async () => {
    const ws = await workspaceOf([{ ts: '2026-11-09T10:00:00Z', kind: 'session.created', session: 'S1' }]);
    const outputs: DetectorOutput[] = [];
    runRules(ws.db, detectOptionsOf({}), [counting('silent-truncation', 7, 3)], (_rule, out) => outputs.push(out));
    expect(outputs.map((o) => o.findings.map((f) => f.message))).toEqual([[0, 1, 2, 3, 4, 5, 6].map((n) => `finding ${n}`)]);
  });

  it('may be handed over while the rule still reads rows of a query on the same connection', async () => {
    const ws = await workspaceOf(Array.from({ length: 5 }, (_, i) => ({ ts: `2026-11-09T10:00:0${i}Z`, kind: 'session.created', session: `S${i}` })));
    const reading = {
      ...RULES[0]!,
      id: 'silent-truncation',
      detect(ctx) {
        for (const id of ctx.db.prepare('SELECT id FROM records ORDER BY id').pluck().iterate() as Iterable<number>) {
          ctx.handOver([{ ...finding('silent-truncation', id), evidenceIds: [id] }]);
        }
        return { findings: [], notKnowable: [] };
      },
    } as RuleModule;
    const report = detect(ws.db, { rules: [reading] });
    expect(report.findings.map((f) => f.message)).toEqual([1, 2, 3, 4, 5].map((n) => `finding ${n}`));
  });

  it("are checked as the rule's own, like the findings it returns", async () => {
    const ws = await workspaceOf([{ ts: '2026-11-09T10:00:00Z', kind: 'session.created', session: 'S1' }]);
    expect(() => detect(ws.db, { rules: [counting('silent-truncation', 4, 2, true)] })).toThrow(/rule silent-truncation reported for someone-else/);
    expect(() => detect(ws.db, { rules: [counting('silent-truncation', 3, 2, true)] })).toThrow(/rule silent-truncation reported for someone-else/);
  });
});
