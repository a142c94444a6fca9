import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULE_IDS } from '../../src/detect/rules/index.js';
import type { Finding } from '../../src/model/finding.js';
import { analyzeFilesOf } from '../helpers/logs.js';
import { examplesOf, readRulesDoc, sectionsOf } from '../docs/rule-examples.js';

// rules.md: evidence is the witness. A finding's message must not claim what its evidence does not show:
// every time of day it names is the time of a cited line, and every count of things ("2 writes",
// "3 reconnects") is at most the number of cited lines, unless a cited line states that number itself
// (a counter such as `replayed: 3`). Run over every rule's docs/rules.md example and every repro.

const TIME = /(?<!\d)\d{2}:\d{2}:\d{2}(?:\.\d{3})?(?!\d)/g;
const COUNT = /\b(\d+) (?:more )?(writes?|reconnects?|rejections?|POSTs?|requests?|events?|calls?|answers?|streams?|executions?|ids?|foreign event ids?)\b/g;

interface Case { name: string; files: Record<string, string[]> }

const sections = sectionsOf(readRulesDoc());
const cases: Case[] = RULE_IDS.map((id) => ({ name: `docs/rules.md ${id}`, files: { 'server.ndjson': examplesOf(id, sections.get(id) ?? '').fires } }));
const repros = join(fileURLToPath(new URL('../repros/fixtures', import.meta.url)));
for (const f of readdirSync(repros).filter((x) => x.endsWith('.ndjson'))) {
  cases.push({ name: `repro ${f}`, files: { [f]: readFileSync(join(repros, f), 'utf8').split('\n').filter((l) => l.trim() !== '') } });
}

/** The claims of one finding its cited lines do not back. */
function unbackedClaims(f: Finding, files: Record<string, string[]>): string[] {
  const cited = f.evidence.map((e) => files[e.file]?.[e.line - 1] ?? '');
  const tsOf = (raw: string) => {
    try {
      const ts = (JSON.parse(raw) as { ts?: unknown }).ts;
      const ms = typeof ts === 'number' ? ts : Date.parse(String(ts));
      return Number.isNaN(ms) ? String(ts ?? '') : new Date(ms).toISOString();
    } catch {
      return raw;
    }
  };
  const problems: string[] = [];
  for (const m of f.message.matchAll(TIME)) {
    if (!cited.some((raw) => tsOf(raw).includes(m[0]))) problems.push(`time ${m[0]} is in no cited line`);
  }
  for (const m of f.message.matchAll(COUNT)) {
    const n = Number(m[1]);
    const stated = cited.some((raw) => new RegExp(`:\\s*${n}\\b`).test(raw));
    if (n > cited.length && !stated) problems.push(`"${m[0]}" but ${cited.length} cited lines`);
  }
  return problems;
}

describe('every claim of a message is in its evidence', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const report = await analyzeFilesOf(c.files);
      const bad = report.findings.flatMap((f) => unbackedClaims(f, c.files).map((p) => `${f.rule}: ${p} — ${f.message}`));
      expect(bad).toEqual([]);
    });
  }

  it('catches a message that names a time or a count its evidence does not show', () => {
    const files = { 'x.ndjson': ['{"ts":"2026-01-01T00:00:01.000Z","kind":"stream.opened"}'] };
    const f = { rule: 'dual-writer', severity: 'error', session: 'S', at: '', message: 'retired only at 2026-01-01T00:00:09.000Z; 3 reconnects', evidence: [{ file: 'x.ndjson', line: 1 }] } as unknown as Finding;
    expect(unbackedClaims(f, files)).toHaveLength(2);
  });
});
