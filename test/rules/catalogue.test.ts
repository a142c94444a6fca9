import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAMILY_TITLES } from '../../src/detect/rule.js';
import { RULES } from '../../src/detect/rules/index.js';

// One place per rule: src/detect/rules/<id>.ts holds it, queries/rules/<id>.sql
// its SQL (if any), test/rules/<id>.test.ts its tests, and the "## <id>" section
// of docs/rules.md its doc, which must say what the module says.

const root = (p: string) => fileURLToPath(new URL(`../../${p}`, import.meta.url));
const docs = readFileSync(root('docs/rules.md'), 'utf8');
const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();
const section = (id: string) => docs.split(/^## /m).find((p) => p.split('\n')[0]!.trim() === id);

describe('the rule catalogue', () => {
  it('has one module per file of src/detect/rules/, named by its id, and no file outside the index', () => {
    const files = readdirSync(root('src/detect/rules')).filter((f) => f.endsWith('.ts') && f !== 'index.ts').map((f) => f.slice(0, -3));
    expect(files.sort()).toEqual(RULES.map((r) => r.id).sort());
  });

  it('has a test file per rule and no test file for a rule that does not exist', () => {
    const missing = RULES.filter((r) => !existsSync(root(`test/rules/${r.id}.test.ts`))).map((r) => r.id);
    expect(missing).toEqual([]);
    // A rule renamed or removed must not leave its test behind, passing on its own; the suites across rules are named here.
    const ids = new Set<string>(RULES.map((r) => r.id));
    const acrossRules = ['catalogue', 'evidence-claims', 'fact-headers', 'polling', 'realtraffic-wording', 'stale-session-ids'];
    const orphans = readdirSync(root('test/rules')).filter((f) => f.endsWith('.test.ts')).map((f) => f.slice(0, -'.test.ts'.length));
    // A rule's tests may be split by aspect: `<rule-id>-<aspect>.test.ts` sits beside `<rule-id>.test.ts`.
    const ofRule = (n: string) => ids.has(n) || [...ids].some((id) => n.startsWith(`${id}-`));
    expect(orphans.filter((n) => !ofRule(n) && !acrossRules.includes(n)), 'test files named after no rule (or a suite across rules to name above)').toEqual([]);
  });

  it('names every queries/rules/*.sql after a rule, and each rule module reads only its own rule query', () => {
    const ids = new Set<string>(RULES.map((r) => r.id));
    const sql = readdirSync(root('queries/rules')).map((f) => f.replace(/\.sql$/, ''));
    expect(sql.filter((n) => !ids.has(n))).toEqual([]);
    for (const r of RULES) {
      const source = readFileSync(root(`src/detect/rules/${r.id}.ts`), 'utf8');
      const read = [...source.matchAll(/'rules\/([a-z0-9-]+)'/g)].map((m) => m[1]);
      expect(read.filter((n) => n !== r.id), `${r.id} reads another rule's query`).toEqual([]);
    }
  });

  it('keeps the questions a rule asks in queries/: a module prepares SQL only where a comment says it is plumbing', () => {
    const inline = RULES.flatMap((r) => {
      const lines = readFileSync(root(`src/detect/rules/${r.id}.ts`), 'utf8').split('\n');
      return lines.flatMap((l, i) => (/\.prepare\(/.test(l) && !/\/\/ Plumbing\b/.test(`${lines[i - 1]}\n${lines[i - 2]}`) ? [`${r.id}.ts:${i + 1}`] : []));
    });
    expect(inline).toEqual([]);
  });

  it('lists the rules in docs/rules.md in catalogue order', () => {
    const table = [...docs.matchAll(/^\| \[`([a-z0-9-]+)`\]/gm)].map((m) => m[1]);
    const headings = [...docs.matchAll(/^## ([a-z0-9-]+)$/gm)].map((m) => m[1]);
    expect(table).toEqual(RULES.map((r) => r.id));
    expect(headings).toEqual(RULES.map((r) => r.id));
  });

  for (const r of RULES) {
    it(`${r.id}: its doc section says what its module says`, () => {
      const text = section(r.id);
      expect(text, `docs/rules.md has no "## ${r.id}"`).toBeDefined();
      const seeds = r.seeds.length > 0 ? ` · **Seeds:** ${r.seeds.join(', ')}` : '';
      expect(text).toContain(`**Severity:** ${r.severity} · **Family:** ${FAMILY_TITLES[r.family]}${seeds}`);
      expect(docs).toContain(`| [\`${r.id}\`](#${r.id}) | ${r.severity} | ${FAMILY_TITLES[r.family]} |`);
      const body = squash(text!);
      expect(body).toContain(`**What it means.** ${squash(r.explanation.meaning)}`);
      expect(body).toContain(`**Why it breaks the boundary.** ${squash(r.explanation.whyItBreaks)}`);
      expect(body).toContain(`**What the server should do.** ${squash(r.explanation.shouldHave)}`);
    });
  }
});
