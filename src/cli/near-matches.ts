import { editDistance } from '../model/edit-distance.js';

// What a mistyped name was probably meant to be: one function for rule ids,
// session ids and anything else a flag names from a known list.

/**
 * The candidates a typo was probably meant to be, best first: those that hold the
 * typed text (or are held by it), then those a few edits away, fewest edits first;
 * ties keep the candidates' own order. Case is ignored.
 */
export function nearMatches(typed: string, candidates: readonly string[], limit = 5): string[] {
  const t = typed.toLowerCase();
  if (t === '') return [];
  // A long id (a UUID) tolerates more slips than a short rule id.
  const allowed = Math.max(3, Math.floor(t.length / 5));
  const scored: { c: string; score: number; i: number }[] = [];
  candidates.forEach((c, i) => {
    const lc = c.toLowerCase();
    if (lc === t) return void scored.push({ c, score: -1, i });
    if (lc.includes(t) || t.includes(lc)) return void scored.push({ c, score: 0, i });
    if (Math.abs(lc.length - t.length) > allowed) return;
    const d = editDistance(lc, t, allowed);
    if (d <= allowed) scored.push({ c, score: d, i });
  });
  return scored.sort((a, b) => a.score - b.score || a.i - b.i).slice(0, limit).map((s) => s.c);
}
