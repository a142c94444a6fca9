// Small helpers so messages name concrete ids the same way everywhere.

/** "7, 8 and 9", or the first few and how many more. */
export function idList(ids: readonly string[], max = 5): string {
  if (ids.length === 0) return '';
  const shown = ids.slice(0, max);
  if (ids.length > max) return `${shown.join(', ')} and ${ids.length - max} more`;
  if (shown.length === 1) return shown[0]!;
  return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
}

export function at(ms: number): string {
  return isoTime(ms);
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

/**
 * An age set beside a limit: to a tenth of a second, unless that reads as the limit itself (1,760 ms past a
 * 1,750 ms retention is not "1.8 s beyond 1.8 s"); then exact. The limit is printed with duration().
 */
export function ageBeside(ageMs: number, limitMs: number): string {
  const age = seconds(ageMs);
  return age === seconds(limitMs) ? duration(ageMs) : age;
}

/** A record time as the reports print it: ISO 8601 in UTC. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** How many ids listIds names before it counts the rest. */
export const IDS_SHOWN = 5;

/**
 * Rejections a stale-writer finding cites beyond its stream's opening and end: it counts them all, but a
 * server that never retires a stream makes each stream block every later reconnect, and citing each in
 * each finding grew with the square of the log.
 */
export const REJECTIONS_CITED = 20;

/**
 * "a, b, c" or "a, b, c and 4 more": ids named in a message without flooding it (no "and" before the last, unlike idList).
 * `total`: how many there are, where `ids` holds only the first.
 */
export function listIds(ids: readonly (string | number | null | undefined)[], max = IDS_SHOWN, total?: number): string {
  const shown = ids.filter((x) => x !== null && x !== undefined).map(String);
  const all = total ?? shown.length;
  if (all <= max) return shown.join(', ');
  return `${shown.slice(0, max).join(', ')} and ${all - max} more`;
}

/** A threshold as people say it: "10 s", "1500 ms". */
export function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** 1st, 2nd, 3rd, 4th, 11th, 21st. */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th';
  return `${n}${suffix}`;
}

/**
 * Clock skew told as the closing "Clock skew" note tells it (render/common.ts, skewNote): the node that logged the
 * later fact first, from the side of its clock running behind ("the clock of mcp-b running behind mcp-a's"), so that
 * a not-knowable and the note name the same node from the same side.
 */
export function clockBehind(node: string | null | undefined, ahead: string | null | undefined): string {
  const of = node == null ? 'the clock that logged it' : `the clock of ${node}`;
  return `${of} running behind ${ahead == null ? 'another' : `${ahead}'s`} (clock skew)`;
}

/**
 * A writer's node that logged nothing after `lastMs`, before another node took over: if its process died, the
 * stream died with it, a close no log line shows. dual-writer and engine-divergence hedge the same takeover so.
 */
export function silentWriterNode(node: string, streams: readonly string[], lastMs: number): string {
  const them = streams.join(', ');
  return `${node}, which wrote ${them}, logged nothing after ${at(lastMs)}: if its process died, ${them} died with it, which no log line shows`;
}
