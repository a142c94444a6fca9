// What a report leaves out, counted per session: the text and HTML reports past their cap per rule,
// and what-if past its first changes of a kind, each name the sessions with the most.

export interface SessionTally<K> {
  /** Items left out, in all sessions. */
  hidden: number;
  /** The sessions with the most, each with its count, most first. */
  named: [K, number][];
  /** Sessions with some that are not named. */
  unnamed: number;
}

/** The `max` sessions with the most items (ties in `order`), and what they add up to. */
export function tallyBySession<K>(perSession: ReadonlyMap<K, number>, max: number, order: (a: K, b: K) => number): SessionTally<K> {
  let hidden = 0;
  for (const n of perSession.values()) hidden += n;
  const top = [...perSession].sort((a, b) => b[1] - a[1] || order(a[0], b[0]));
  return { hidden, named: top.slice(0, max), unnamed: Math.max(0, top.length - max) };
}
