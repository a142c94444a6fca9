import { describe, expect, it } from 'vitest';
import type { RuleModule, SharedFact } from '../../src/detect/rule.js';
import { RULES } from '../../src/detect/rules/index.js';
import { factReleases } from '../../src/detect/run.js';
import { detect } from '../../src/pipeline/derived.js';
import { workspaceOf } from '../helpers/logs.js';

// The facts rules share (reconnects, served upgrades) grow with the log's reconnects.
// A run loads each once and lets it go after the last rule that declares it, so the
// rules after it (and the report) do not hold it.

const rule = (id: string, facts: SharedFact[] | undefined, ask: SharedFact[] = facts ?? []): RuleModule =>
  ({
    ...RULES[0]!,
    id,
    facts,
    detect(ctx) {
      for (const f of ask) ctx.shared(f);
      return { findings: [], notKnowable: [] };
    },
  }) as RuleModule;

describe('shared facts', () => {
  const f1: SharedFact = () => 1;
  const f2: SharedFact = () => 2;

  it('are let go after the last rule that declares them', () => {
    const plan = factReleases([rule('a', [f1]), rule('b', undefined), rule('c', [f1, f2]), rule('d', [f2])]);
    expect([...plan.entries()]).toEqual([
      [2, [f1]],
      [3, [f2]],
    ]);
  });

  it('are loaded once per run, however many rules read them and whatever runs between', async () => {
    const ws = await workspaceOf([{ ts: '2026-11-09T10:00:00Z', kind: 'session.created', session: 'S1' }]);
    let loads = 0;
    const counted: SharedFact = () => ++loads;
    detect(ws.db, { rules: [rule('a', [counted]), rule('b', undefined), rule('c', [counted])] });
    expect(loads).toBe(1);
    detect(ws.db, { rules: [rule('a', [counted])] });
    expect(loads).toBe(2);
  });

  it('must be declared by the rule that reads them: an undeclared one would be let go before it asks', async () => {
    const ws = await workspaceOf([{ ts: '2026-11-09T10:00:00Z', kind: 'session.created', session: 'S1' }]);
    const named: SharedFact = function reconnects() {
      return 0;
    };
    expect(() => detect(ws.db, { rules: [rule('a', [f1], [named])] })).toThrow(/rule a asks for a shared fact \(reconnects\) it does not declare/);
  });

  it('are declared by every rule of the catalogue that reads one (the catalogue runs without a throw)', async () => {
    const ws = await workspaceOf([
      { ts: '2026-11-09T10:00:00Z', kind: 'session.created', session: 'S1' },
      { ts: '2026-11-09T10:00:01Z', kind: 'upgrade', session: 'S1', last_event_id: '3', decision: 'resume', status: 200, stream: 'g1' },
    ]);
    expect(() => detect(ws.db)).not.toThrow();
    expect(RULES.filter((r) => r.facts !== undefined).map((r) => r.id)).toContain('silent-truncation');
  });
});
