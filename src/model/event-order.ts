// Order of event ids (log-format.md): emission order per lane; only where an
// id was never seen emitted do ids that are strings of digits compare
// numerically. Anything else has no order the log can prove.

/** Where the presented session's current incarnation emitted an event id. */
export interface Emission {
  recordId: number;
  stream: string;
  lane: string;
  pos: number;
  tsMs: number;
}

export interface OrderedId {
  eventId: string;
  own: Emission | null;
}

export function isDigits(id: string): boolean {
  return /^[0-9]+$/.test(id);
}

/** Compares two digit strings as numbers of any size. */
export function compareNumeric(a: string, b: string): number {
  const x = a.replace(/^0+(?=.)/, '');
  const y = b.replace(/^0+(?=.)/, '');
  if (x.length !== y.length) return Math.sign(x.length - y.length);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** -1, 0 or 1 where the log orders the two ids; undefined where it cannot. */
export function compareIds(a: OrderedId, b: OrderedId): number | undefined {
  if (a.eventId === b.eventId) return 0;
  if (a.own && b.own) return a.own.lane === b.own.lane ? Math.sign(a.own.pos - b.own.pos) : undefined;
  if (isDigits(a.eventId) && isDigits(b.eventId)) return compareNumeric(a.eventId, b.eventId);
  return undefined;
}

/** Both ids emitted on one lane: the order came from the log lines, not from the ids. */
export function orderedByEmission(a: OrderedId, b: OrderedId): boolean {
  return a.own !== null && b.own !== null && a.own.lane === b.own.lane;
}
