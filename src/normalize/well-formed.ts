// A JSON string may hold a lone UTF-16 surrogate ("S\ud800" is valid JSON). SQLite stores text as UTF-8,
// where a lone surrogate has no encoding: better-sqlite3 writes bytes that read back as U+FFFD, so the
// session id stored no longer equals the one in memory, derive found no incarnation of that session, and a
// log with three errors passed the gate with none. A string is made well-formed where it is read, as
// every UTF-8 writer would: each lone surrogate becomes U+FFFD (String.prototype.toWellFormed), the same
// value in memory and in the store. JSON text holds one only as an escape, so only such lines are walked.

type WellFormable = { isWellFormed(): boolean; toWellFormed(): string };

/** Whether a JSON text may hold a lone surrogate: only an escape \uD800–\uDFFF can write one. */
export function mayHoldLoneSurrogate(text: string): boolean {
  return text.includes('\\u') && /\\u[dD][89a-fA-F]/.test(text);
}

const wellFormed = (s: string): string => ((s as unknown as WellFormable).isWellFormed() ? s : (s as unknown as WellFormable).toWellFormed());

/** Makes every string (value and key) of a parsed JSON value well-formed, in place; a loop, as deep as JSON.parse takes. */
export function wellFormedInPlace(root: unknown): void {
  const todo: unknown[] = [root];
  while (todo.length > 0) {
    const v = todo.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x === 'string') v[i] = wellFormed(x);
        else todo.push(x);
      }
      continue;
    }
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const x = o[k];
      const key = wellFormed(k);
      if (key !== k) {
        delete o[k];
        o[key] = x;
      }
      if (typeof x === 'string') o[key] = wellFormed(x);
      else todo.push(x);
    }
  }
}
