import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/finding.js';
import { cli } from '../cli/run-cli.js';

// The acceptance corpus (README.md here): each case is a folder of logs and an
// expect.json written from the spec alone. `analyze --format json` must give
// every expected finding and no other, the not-knowable entries it names, and
// the exit code.

interface Expect {
  why: string;
  findings?: { rule: string; session: string | null }[];
  not_knowable?: { rule: string; session?: string | null }[];
  exit?: number;
  args?: string[];
  summary?: Record<string, unknown>;
  exact_counts?: boolean;
}

const ROOT = join(import.meta.dirname, 'cases');
const key = (f: { rule: string; session?: string | null }) => `${f.rule} @ ${f.session ?? 'null'}`;

function bag(list: { rule: string; session?: string | null }[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const f of list) m.set(key(f), (m.get(key(f)) ?? 0) + 1);
  return m;
}

/** What differs between the report and the expectation, one line each; empty when they agree. */
function differences(exp: Expect, report: Report, code: number): string[] {
  const out: string[] = [];
  if (exp.exit !== undefined && code !== exp.exit) out.push(`exit ${code}, expected ${exp.exit}`);
  const got = bag(report.findings);
  const want = bag(exp.findings ?? []);
  for (const [k, n] of want) {
    const g = got.get(k) ?? 0;
    if (g === 0 || (exp.exact_counts === true && g !== n)) out.push(`missing ${k} (want ${n}, got ${g})`);
  }
  for (const [k, n] of got) if (!want.has(k)) out.push(`unexpected ${k} x${n}: ${report.findings.find((f) => key(f) === k)!.message}`);
  for (const nk of exp.not_knowable ?? []) {
    if (!report.not_knowable.some((x) => x.rule === nk.rule && (nk.session === undefined || x.session === nk.session))) out.push(`not_knowable missing ${key(nk)}`);
  }
  for (const [field, want] of Object.entries(exp.summary ?? {})) {
    const have = (report.summary as unknown as Record<string, unknown>)[field];
    const same =
      JSON.stringify(have) === JSON.stringify(want) ||
      (typeof want === 'object' && want !== null && Object.entries(want).every(([k, v]) => JSON.stringify((have as Record<string, unknown>)?.[k]) === JSON.stringify(v)));
    if (!same) out.push(`summary.${field} = ${JSON.stringify(have)}, expected ${JSON.stringify(want)}`);
  }
  return out;
}

for (const area of readdirSync(ROOT).sort()) {
  describe(area, () => {
    for (const name of readdirSync(join(ROOT, area)).sort()) {
      const dir = join(ROOT, area, name);
      const exp = JSON.parse(readFileSync(join(dir, 'expect.json'), 'utf8')) as Expect;
      const logs = readdirSync(dir).filter((f) => f !== 'expect.json').sort().map((f) => join(dir, f));
      it(name, async () => {
        const { code, out } = await cli('analyze', ...logs, '--format', 'json', ...(exp.args ?? []));
        const report = JSON.parse(out) as Report;
        expect(differences(exp, report, code), exp.why).toEqual([]);
      });
    }
  });
}
