import { findingIdentity as findingKey } from '../findings/identity.js';
import type { Finding } from '../model/finding.js';

// Findings of the world as logged against those of the what-if world, matched
// by their identity (findings/identity.ts): a message may read differently
// under another retention (another cause leads).

export function diffFindings(before: readonly Finding[], after: readonly Finding[]): { disappeared: Finding[]; appeared: Finding[] } {
  return { disappeared: unmatched(before, after), appeared: unmatched(after, before) };
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
