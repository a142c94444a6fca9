import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/model/finding.js';
import { headlines, renderWhatIfText, type Flip, type WhatIfPolicy, type WhatIfReport } from '../../src/whatif/index.js';
import { SHOWN_PER_KIND } from '../../src/whatif/render-text.js';

// A short what-if retention over a production log changes thousands of findings and decisions:
// the text report must stay a page, counting what it does not show, and the headline one sentence.

const POLICY: WhatIfPolicy = { retention: { maxAgeMs: 2000 }, fenceGraceMs: 5000, unresumable: 'reject', stormCount: 5, stormWindowMs: 10_000, duplicateCallWindowMs: 60_000 };
const at = (i: number) => new Date(Date.parse('2026-11-09T10:00:00.000Z') + i * 1000).toISOString();

function finding(rule: string, i: number, session: string): Finding {
  return { rule, severity: 'error', session, at: at(i), message: `finding ${i}`, evidence: [{ file: 'server.ndjson', line: i + 1 }] };
}

function flip(i: number, session: string): Flip {
  const summary = (decision: string, status: number) => ({ decision, status, reason: '', checks: [] }) as unknown as Flip['before'];
  return { session, at: at(i), last_event_id: '7', logged: { decision: 'resume', status: 200 }, before: summary('resume', 200), after: summary('reject', 409), why: 'position evicted', evidence: [{ file: 'server.ndjson', line: i + 1 }] };
}

function report(appeared: Finding[], flips: Flip[]): WhatIfReport {
  return { version: 1, policy: POLICY, headline: ['with 2 s retention: …'], before: { by_rule: {} }, after: { by_rule: {} }, disappeared: [], appeared, flips, rejected_lines: 0 };
}

describe('the what-if text report of a large change', () => {
  it('shows the first of each rule and of each flip in full, and counts the rest per session', () => {
    // 40 silent-truncations over 4 sessions (s0 has the most), 3 engine-divergences, 25 flips.
    const appeared = [
      ...Array.from({ length: 40 }, (_, i) => finding('silent-truncation', i, `s${i % 7 === 0 ? 0 : (i % 3) + 1}`)),
      ...Array.from({ length: 3 }, (_, i) => finding('engine-divergence', 100 + i, 'e1')),
    ];
    const text = renderWhatIfText(report(appeared, Array.from({ length: 25 }, (_, i) => flip(i, `f${i % 2}`))));
    expect(text).toContain('findings that appear (43):');
    expect(text.match(/^ {2}error silent-truncation /gm)).toHaveLength(SHOWN_PER_KIND);
    expect(text.match(/^ {2}error engine-divergence /gm)).toHaveLength(3);
    const hidden = appeared.filter((f) => f.rule === 'silent-truncation').slice(SHOWN_PER_KIND);
    const perSession = new Map<string, number>();
    for (const f of hidden) perSession.set(f.session!, (perSession.get(f.session!) ?? 0) + 1);
    const [topSession, topCount] = [...perSession].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]!;
    expect(text).toContain(`  … ${hidden.length} more silent-truncation findings in ${perSession.size} sessions: ${topSession} (${topCount}), `);
    expect(text).not.toContain('more engine-divergence');
    expect(text).toContain('reconnect decisions that flip (engine as logged → under the change) (25):');
    expect(text).toContain('  … 15 more resume → reject flips in 2 sessions: f0 (8), f1 (7)');
    expect(text.match(/--format json lists every one/g)).toHaveLength(2);
  });

  it('lists everything when nothing is over the cap, with no note', () => {
    const text = renderWhatIfText(report(Array.from({ length: SHOWN_PER_KIND }, (_, i) => finding('silent-truncation', i, 's1')), [flip(1, 's1')]));
    expect(text.match(/^ {2}error silent-truncation /gm)).toHaveLength(SHOWN_PER_KIND);
    expect(text).not.toContain('more ');
    expect(text).not.toContain('--format json lists');
  });

  it('says why hundreds of truncations stay in one sentence: counted by why, the first few named', () => {
    const remaining = Array.from({ length: 300 }, (_, i) => ({ session: `s${i}`, at: at(i), causes: i < 200 ? (['short-replay'] as const) : (['max-age'] as const) }));
    const [line] = headlines({
      change: { retention: { maxAgeMs: 2000 } },
      policy: POLICY,
      before: { 'silent-truncation': 300 },
      after: { 'silent-truncation': 300 },
      disappeared: [],
      appeared: [],
      flips: [],
      remainingTruncations: remaining.map((t) => ({ ...t, causes: [...t.causes] })),
      stillRefused: [],
      shortfallsForgiven: 0,
    });
    expect(line).toBe(
      `with 2 s retention: all 300 silent-truncation findings stay (all: 200 replayed too few events: not a retention problem (s0 at ${at(0)}, s1 at ${at(1)}, s2 at ${at(2)} and 197 more); ` +
        `100 resumed a position older than the new retention (s200 at ${at(200)}, s201 at ${at(201)}, s202 at ${at(202)} and 97 more); resumescope analyze --rule silent-truncation lists them as logged)`,
    );
  });
});
