// Field lookup across the shapes structured loggers write: top level first,
// then one nested wrapper object; dotted names both flat (OpenTelemetry) and nested.

export type Json = Record<string, unknown>;

/** log-format.md's four, Google Cloud Logging's `jsonPayload` (a structured line as its export keeps it), and an Elasticsearch hit's `_source` (a line its shipper decoded). */
const WRAPPERS = ['mcp', 'data', 'fields', 'attributes', 'jsonPayload', '_source'] as const;

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export type Accept = (v: unknown) => boolean;

export const isString: Accept = (v) => typeof v === 'string';
export const isNumber: Accept = (v) => typeof v === 'number' && Number.isFinite(v);
export const isStringOrNumber: Accept = (v) => isString(v) || isNumber(v);
export const isBool: Accept = (v) => typeof v === 'boolean';

/** A field: its canonical name first, then its aliases, and the type its value must have. */
export interface Field {
  names: readonly string[];
  accept: Accept;
}

/** Where a name serves a field: `rank` orders the candidates (scope first, then the name's place in the list). */
interface Slot {
  field: number;
  rank: number;
}
interface DottedSlot extends Slot {
  name: string;
  /** The parts after the first: the path below the object the first part names. */
  rest: string[];
}

/** A key that differs from a field's name only in case or separators (`Session`, `LastEventID`, `last-event-id`): the fields it may have meant. */
export interface NearMiss {
  key: string;
  meant: readonly { field: number; name: string }[];
}

/** Slots of a name; `near`: set on a name that is no field's, but folds to some (a key learnt from the lines). */
type Slots = Slot[] & { near?: NearMiss };

/** A name's case and separators folded away: `LastEventID`, `last-event-id` and `last_event_id` are one. */
function foldName(name: string): string {
  return name.toLowerCase().replace(/[-_. ]/g, '');
}

/** Keys learnt (a name no field has) are remembered up to this many: a log whose keys are ids learns no more. */
const LEARNT = 4096;

/** A wrapper's candidates all rank after the top level's. */
const WRAPPER_RANK = 1 << 16;
const NONE = 2 * WRAPPER_RANK;

/**
 * Reads a fixed set of fields of one object. The rule, for each field: the
 * value of the first name (canonical, then aliases) whose value has the
 * expected type, looked for at the top level first, then in the first wrapper
 * that is an object (only where the top level holds some object); a dotted
 * name is a flat key, else (where no such key is) the nested path. An alias
 * of the wrong type (ECS `event` as an object) is skipped.
 *
 * Asking each of ~50 fields by each of its names in each scope cost more than
 * parsing the line. This visits each key of the (two) scopes once instead and
 * lets it fill the fields it names, keeping per field the best-ranked value.
 */
/** The nested object a record's fields are looked for in after the top level: the first of WRAPPERS that is an object. */
export function wrapperOf(obj: Json): Json | undefined {
  for (const w of WRAPPERS) {
    const inner = obj[w];
    if (isObject(inner)) return inner;
  }
  return undefined;
}

export class FieldReader<K extends string> {
  /** Each field's index into what read() returns. */
  readonly at: Readonly<Record<K, number>>;
  private readonly accepts: Accept[] = [];
  private readonly byName = new Map<string, Slots>();
  /** With near misses asked for: each folded name, and the fields whose names fold to it. */
  private readonly folded: Map<string, { field: number; name: string }[]> | undefined;
  private learnt = 0;
  private readonly nearHits: NearMiss[] = [];
  private readonly byHead = new Map<string, DottedSlot[]>();
  private readonly values: unknown[];
  private readonly ranks: number[];
  private readonly present: boolean[];

  /**
   * `nearMisses`: also note each key that is no field's name but differs from one only in case or separators
   * (nearMisses() after a read), except keys near the names in `unlessNear` (generic words: `Host` is no node).
   */
  constructor(fields: Readonly<Record<K, Field>>, nearMisses?: { unlessNear: readonly string[] }) {
    const at = {} as Record<K, number>;
    for (const key of Object.keys(fields) as K[]) {
      const field = this.accepts.length;
      at[key] = field;
      this.accepts.push(fields[key].accept);
      fields[key].names.forEach((name, rank) => {
        add(this.byName, name, { field, rank });
        const [head, ...rest] = name.split('.');
        if (rest.length > 0) add(this.byHead, head!, { field, rank, name, rest });
      });
    }
    if (nearMisses !== undefined) {
      const folded = new Map<string, { field: number; name: string }[]>();
      const skip = new Set(nearMisses.unlessNear.map(foldName));
      for (const key of Object.keys(fields) as K[]) {
        for (const name of fields[key].names) {
          const f = foldName(name);
          if (!skip.has(f)) add(folded, f, { field: at[key], name });
        }
      }
      this.folded = folded;
    }
    this.at = at;
    this.values = new Array<unknown>(this.accepts.length).fill(undefined);
    this.ranks = new Array<number>(this.accepts.length).fill(NONE);
    this.present = new Array<boolean>(this.accepts.length).fill(false);
  }

  /**
   * Every field's value (undefined where none has the type), by `at`. The
   * array is reused by the next read: take what is needed before that.
   */
  read(obj: Json): readonly unknown[] {
    this.values.fill(undefined);
    this.ranks.fill(NONE);
    this.present.fill(false);
    this.nearHits.length = 0;
    // A wrapper that is an object is a nested object: the top level then holds one.
    this.scan(obj, 0);
    const inner = wrapperOf(obj);
    if (inner !== undefined) this.scan(inner, WRAPPER_RANK);
    return this.values;
  }

  /** Whether the last read found the field's name in any scope at all, of any type (null included): "absent" vs "null". */
  found(field: number): boolean {
    return this.present[field]!;
  }

  /** The keys of the last read that are no field's name but fold to one's (only where asked for in the constructor). */
  nearMisses(): readonly NearMiss[] {
    return this.nearHits;
  }

  private scan(scope: Json, base: number): void {
    for (const key in scope) {
      const v = scope[key];
      let slots = this.byName.get(key);
      if (slots === undefined && this.folded !== undefined) slots = this.learn(key);
      if (slots !== undefined) {
        if (slots.near !== undefined) this.nearHits.push(slots.near);
        else if (v !== undefined) for (const s of slots) this.offer(s, base, v);
      }
      if (!isObject(v)) continue;
      const dotted = this.byHead.get(key);
      if (dotted === undefined) continue;
      for (const d of dotted) {
        // A flat key of the whole dotted name is the name's value, whatever it holds.
        if (d.name in scope) continue;
        const w = follow(v, d.rest);
        if (w !== undefined) this.offer(d, base, w);
      }
    }
  }

  /** A key no field has: whether it folds to a field's name, remembered (an empty list) so that the next line asks once. */
  private learn(key: string): Slots {
    const meant = this.folded!.get(foldName(key));
    const slots: Slots = [];
    if (meant !== undefined) slots.near = { key, meant };
    if (this.learnt < LEARNT) {
      this.learnt++;
      this.byName.set(key, slots);
    }
    return slots;
  }

  private offer(s: Slot, base: number, v: unknown): void {
    this.present[s.field] = true;
    const rank = base + s.rank;
    if (rank < this.ranks[s.field]! && this.accepts[s.field]!(v)) {
      this.ranks[s.field] = rank;
      this.values[s.field] = v;
    }
  }
}

function add<T>(m: Map<string, T[]>, key: string, v: T): void {
  const list = m.get(key);
  if (list === undefined) m.set(key, [v]);
  else list.push(v);
}

function follow(from: Json, path: readonly string[]): unknown {
  let cur: unknown = from;
  for (const part of path) {
    if (!isObject(cur) || !(part in cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

/** Event and request ids are opaque: 1204 and "1204" are the same id. */
export function idString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) {
    if (Number.isInteger(v) && !Number.isSafeInteger(v)) roundedIdRead = true;
    return String(v);
  }
  return undefined;
}

/**
 * JSON.parse rounds an integer beyond 2^53, so an id written as one lost its last digits: whether idString
 * read such an id since the last ask. The line is then read again from its text (normalize/exact-integers.ts).
 * Asked after each line: no scan of every line's text for long digit runs (270 ms per million lines).
 */
export function roundedIdWasRead(): boolean {
  const was = roundedIdRead;
  roundedIdRead = false;
  return was;
}

let roundedIdRead = false;
