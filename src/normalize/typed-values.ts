import { DECISIONS } from '../model/record.js';
import { mayHoldCredential, REDACTED } from './redact.js';

// log-format.md: "A line that is not a valid record is never dropped silently". A field written with the
// wrong type was once read as absent: "status":"200" made an accepted resume an unjudged one, with no
// finding, no not-knowable entry and no rejected line. Each typed field a kind reads is settled here:
// read as the spec means it where the writer's form is unambiguous (String(res.statusCode), "false"),
// and otherwise the line is rejected, naming the field, the type and what was written.

/** How a field's value is checked (README, "Decisions where the spec was silent or unclear": "Values"). */
export type FieldType = 'count' | 'seq' | 'status' | 'amount' | 'bool' | 'eventId' | 'eventIds' | 'id' | ClosedSet;
type ClosedSet = 'via' | 'rpcKind' | 'decision';

/** The closed sets of log-format.md, each word in its canonical (lower) case. */
export const CLOSED_SETS: Readonly<Record<ClosedSet, readonly string[]>> = {
  via: ['get', 'post'],
  rpcKind: ['request', 'response', 'notification'],
  decision: DECISIONS,
};
const CLOSED: Readonly<Record<ClosedSet, ReadonlySet<string>>> = {
  via: new Set(CLOSED_SETS.via),
  rpcKind: new Set(CLOSED_SETS.rpcKind),
  decision: new Set(CLOSED_SETS.decision),
};

const DIGITS = /^\d+$/;
const DECIMAL = /^\d+(\.\d+)?$/;

/**
 * Checks values[at], the value of the field named `name` (as log-format.md spells it), and where the writer
 * wrote it as a string the spec reads unambiguously, replaces it with the value meant. Returns why the line
 * is rejected, or undefined where the value is fine. Undefined and null are absent: nothing to check.
 */
export function settle(type: FieldType, name: string, values: unknown[], at: number): string | undefined {
  const v = values[at];
  if (v === undefined || v === null) return undefined;
  switch (type) {
    case 'count':
    case 'seq': {
      const n = typeof v === 'string' && DIGITS.test(v) ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) return `${name} must be ${type === 'seq' ? 'a counter' : 'a count'} (an integer, 0 or more), got ${show(v)}`;
      // JSON.parse has already rounded it (9007199254740993 reads as …992): two records would tie, or swap.
      if (type === 'seq' && !Number.isSafeInteger(n)) return 'seq is beyond 2^53 - 1 (9007199254740991), past which it cannot be read exactly, nor records ordered by it';
      values[at] = n;
      return undefined;
    }
    case 'status': {
      const n = typeof v === 'string' && DIGITS.test(v) ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isFinite(n)) return `${name} must be a number (an HTTP status), got ${show(v)}`;
      if (!Number.isInteger(n) || n < 100 || n > 599) return `${name} must be an HTTP status (an integer from 100 to 599), got ${show(v)}`;
      values[at] = n;
      return undefined;
    }
    case 'amount': {
      const n = typeof v === 'string' && DECIMAL.test(v) ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) return `${name} must be a number (0 or more), got ${show(v)}`;
      values[at] = n;
      return undefined;
    }
    case 'bool': {
      if (typeof v === 'boolean') return undefined;
      const word = typeof v === 'string' ? v.toLowerCase() : undefined;
      if (word === 'true' || word === 'false') {
        values[at] = word === 'true';
        return undefined;
      }
      return `${name} must be a boolean (true or false), got ${show(v)}`;
    }
    case 'eventId':
      // log-format.md: event ids "are strings or integers". A negative integer is one; a fraction is not.
      if (isEventId(v)) return undefined;
      return `${name} must be a string or an integer (an event id), got ${show(v)}`;
    case 'eventIds': {
      // A list of event ids (replayed_ids, sse_event_ids): an element of another type was once left out
      // without a word, and the list then said fewer events were replayed than were.
      if (!Array.isArray(v)) return `${name} must be an array of event ids, got ${show(v)}`;
      const bad = v.findIndex((id) => !isEventId(id));
      if (bad === -1) return undefined;
      return `${name}[${bad}] must be a string or an integer (an event id), got ${show(v[bad])}`;
    }
    case 'id':
      if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) return undefined;
      return `${name} must be a string or a number (an id), got ${show(v)}`;
    default: {
      const set = CLOSED[type];
      if (typeof v === 'string') {
        if (set.has(v)) return undefined;
        // "GET" as the request line writes it, "Response" as an enum's name prints: the same word.
        const lower = v.toLowerCase();
        if (set.has(lower)) {
          values[at] = lower;
          return undefined;
        }
        return `unknown ${name} ${show(v)} (${orList(CLOSED_SETS[type])})`;
      }
      return `${name} must be a string (${orList(CLOSED_SETS[type])}), got ${show(v)}`;
    }
  }
}

function isEventId(v: unknown): boolean {
  return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
}

function orList(words: readonly string[]): string {
  return `${words.slice(0, -1).join(', ')} or ${words.at(-1)!}`;
}

/** What was written, as a reason may quote it: a short string or a number; never a credential, nor a whole object. */
export function show(v: unknown): string {
  if (typeof v === 'string') {
    if (mayHoldCredential(v)) return `"${REDACTED}"`;
    return v.length > 40 ? `${JSON.stringify(v.slice(0, 40)).slice(0, -1)}…"` : JSON.stringify(v);
  }
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object' && v !== null) return 'an object';
  return String(v);
}
