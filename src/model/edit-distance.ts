/**
 * Levenshtein distance of two short strings, given up (returning bound + 1) once every path exceeds
 * `bound`: one function for the CLI's "did you mean" (cli/near-matches.ts) and a kind written almost
 * right (normalize/near-kinds.ts).
 */
export function editDistance(a: string, b: string, bound: number): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    if (Math.min(...row) > bound) return bound + 1;
    prev = row;
  }
  return prev[b.length]!;
}
