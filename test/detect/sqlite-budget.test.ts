import { describe, expect, it } from 'vitest';
import type { RuleModule } from '../../src/detect/rule.js';
import { RULES } from '../../src/detect/rules/index.js';
import { detect } from '../../src/pipeline/derived.js';
import { workspaceOf } from '../helpers/logs.js';

// The rules' sorts may each hold as much as SQLite's page cache in memory, so the
// rules run on a small budget; the connection gets its own back for what follows
// (a --db file's next ingest, the tui's reads).
describe('SQLite memory while the rules run', () => {
  it('is a 2 MB page budget during the rules (main and temporary schema), and the connection has its own back after, also after a throw', async () => {
    const ws = await workspaceOf([{ ts: '2026-11-09T10:00:00Z', kind: 'session.created', session: 'S1' }]);
    ws.db.pragma('cache_size = -8000');
    const seen: number[][] = [];
    const probe = (fail: boolean): RuleModule =>
      ({
        ...RULES[0]!,
        id: 'probe',
        facts: undefined,
        detect(ctx) {
          seen.push(['main', 'temp'].map((schema) => ctx.db.pragma(`${schema}.cache_size`, { simple: true }) as number));
          if (fail) throw new Error('rule failed');
          return { findings: [], notKnowable: [] };
        },
      }) as RuleModule;
    detect(ws.db, { rules: [probe(false)] });
    expect(() => detect(ws.db, { rules: [probe(true)] })).toThrow('rule failed');
    // the temporary schema holds the shared fact tables (detect/fact-table.ts)
    expect(seen).toEqual([
      [-2048, -2048],
      [-2048, -2048],
    ]);
    expect(ws.db.pragma('cache_size', { simple: true })).toBe(-8000);
  });
});
