import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headerNames, queryHeader } from '../../src/store/queries.js';

// README "Adding a rule": a rule's SQL is queries/rules/<id>.sql, and the other questions it asks are
// queries/facts/*.sql "whose header names the rule". Which facts a rule reads is derived from the code: the
// 'facts/<name>' its module names, and those its imports name, followed through src/detect/ (not into other
// rules' modules or the catalogue) and src/replay/ (the engine replay engine-divergence reads).

const ROOT = join(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
const RULES_DIR = join(SRC, 'detect/rules');
const FACTS_DIR = join(ROOT, 'queries/facts');

/** The value imports of a module (not `import type`: no query runs through a type), as absolute .ts paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/^(?:import|export)(?!\s+type\b)[^;]*?\bfrom\s+'(\.[^']+)'/gm)].map((m) => m[1]!);
  return specs.map((s) => normalize(join(dirname(file), s)).replace(/\.js$/, '.ts'));
}

/** Whether the closure of a rule follows an import into `file`. */
function followed(file: string, rule: string): boolean {
  const rel = relative(SRC, file);
  if (rel.startsWith('detect/rules/')) return file === rule;
  return rel.startsWith('detect/') || rel.startsWith('replay/');
}

/** The facts/<name> queries a rule module reads, itself or through the modules it imports. */
function factsReadBy(rule: string): Set<string> {
  const seen = new Set<string>();
  const facts = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file) || !followed(file, rule)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/'facts\/([a-z0-9-]+)'/g)) facts.add(m[1]!);
    for (const f of importsOf(file)) visit(f);
  };
  visit(rule);
  return facts;
}

const rules = readdirSync(RULES_DIR)
  .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
  .map((f) => ({ id: f.slice(0, -3), file: join(RULES_DIR, f) }));

describe('queries/facts headers', () => {
  it('finds the facts the rules read (the derivation sees through detect/facts/)', () => {
    const reads = new Map(rules.map((r) => [r.id, factsReadBy(r.file)]));
    // resume-after-end reads session-state-at-upgrade only through detect/facts/served-upgrades.ts.
    expect(reads.get('resume-after-end')).toContain('session-state-at-upgrade');
    expect(reads.get('engine-divergence')).toContain('foreign-last-event-ids');
    expect(reads.get('foreign-event-id')).toContain('reconnect-references');
  });

  it.each(rules)('$id: every facts file it reads names it in its header', ({ id, file }) => {
    const unnamed = [...factsReadBy(file)].filter((fact) => !headerNames(queryHeader(`facts/${fact}`), id));
    expect(unnamed, `queries/facts/<name>.sql headers that do not name ${id}`).toEqual([]);
  });

  it('reads only facts files that exist', () => {
    const present = new Set(readdirSync(FACTS_DIR).map((f) => f.replace(/\.sql$/, '')));
    const missing = rules.flatMap((r) => [...factsReadBy(r.file)].filter((f) => !present.has(f)));
    expect(missing).toEqual([]);
  });
});
