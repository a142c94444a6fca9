import { findingIdentity as findingKey } from '../findings/identity.js';
import type { Finding } from '../model/finding.js';

// Findings of the world as logged against those of the what-if world, matched
// by their identity (findings/identity.ts): a message may read differently
// under another retention (another cause leads).

/**
 * Rules whose finding time is the moment a detection threshold is crossed (the 5th 404 of a
 * storm): a what-if threshold moves it, and the same fault would read as one gone and one come.
 * Their unmatched findings are matched again by session and the line the fault starts at.
 */
const TIMED_BY_THRESHOLD: ReadonlySet<string> = new Set(['404-storm']);

/** One fault in both worlds, reported at another time in the what-if one. */
export interface MovedFinding {
  before: Finding;
  after: Finding;
}

export function diffFindings(before: readonly Finding[], after: readonly Finding[]): { disappeared: Finding[]; appeared: Finding[]; moved: MovedFinding[] } {
  const gone = unmatched(before, after);
  const came = unmatched(after, before);
  const moved: MovedFinding[] = [];
  const left = new Set(came);
  for (const f of gone) {
    if (!TIMED_BY_THRESHOLD.has(f.rule)) continue;
    const same = came.find((g) => left.has(g) && g.rule === f.rule && g.session === f.session && sameStart(f, g));
    if (same === undefined) continue;
    left.delete(same);
    moved.push({ before: f, after: same });
  }
  const movedBefore = new Set(moved.map((m) => m.before));
  return { disappeared: gone.filter((f) => !movedBefore.has(f)), appeared: came.filter((g) => left.has(g)), moved };
}

/** Both start at the same log line: the first of their evidence. */
function sameStart(a: Finding, b: Finding): boolean {
  const x = a.evidence[0];
  const y = b.evidence[0];
  return x !== undefined && y !== undefined && x.file === y.file && x.line === y.line;
}

/** The findings of `from` that `to` has no counterpart for, matched one to one (two findings may share a key). */
function unmatched(from: readonly Finding[], to: readonly Finding[]): Finding[] {
  const available = new Map<string, number>();
  for (const f of to) available.set(findingKey(f), (available.get(findingKey(f)) ?? 0) + 1);
  return from.filter((f) => {
    const left = available.get(findingKey(f)) ?? 0;
    if (left === 0) return true;
    available.set(findingKey(f), left - 1);
    return false;
  });
}
