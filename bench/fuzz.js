// The `fuzz` shape: the production mix with a share of its records mutated
// the way a fuzzer (or a buggy logger) would: ids taken from other sessions,
// streams and requests, fields dropped or of the wrong type, kinds swapped,
// times out of order, lines duplicated, cut short or replaced by junk. It
// looks for two things the structured shapes cannot: a lookup that becomes a
// walk when ids collide at random, and an input that throws instead of being
// kept and counted.

const KINDS = [
  'session.created', 'session.terminated', 'session.evicted', 'session.state_changed', 'stream.opened', 'stream.closed', 'stream.fenced',
  'event.sent', 'event.replayed', 'request.sent', 'request.answered', 'request.cancelled', 'request.timed_out', 'request.reissued',
  'buffer.trimmed', 'upgrade', 'call', 'http', 'not.a.kind',
];
const DECISIONS = ['resume', 'attach', 'reject', 'new_session', 'refuse', 'maybe'];
const STATUSES = [200, 202, 204, 400, 404, 409, 410, 500];
/** Values of the wrong type, or of the right type at an edge. */
const ODD_VALUES = [null, true, 0, -1, 1e21, '', ' ', '0', '007', 'NaN', [], [1, 'a'], {}, { nested: { x: 1 } }, 'ü\u202e\u0000x', 'x'.repeat(3000)];
const MUTATED_FIELDS = ['session', 'stream', 'new_stream', 'event_id', 'last_event_id', 'request_id', 'rpc_id', 'principal', 'decision', 'status', 'replayed', 'first_replayed', 'oldest_retained', 'conn', 'incarnation'];

/** Ids seen lately, so that a mutation reuses a real one (a collision), not only fresh noise. */
class Recent {
  constructor(size) {
    this.size = size;
    this.items = [];
    this.at = 0;
  }
  note(v) {
    if (v === undefined || v === null) return;
    if (this.items.length < this.size) this.items.push(v);
    else this.items[this.at++ % this.size] = v;
  }
  pick(rnd, fallback) {
    return this.items.length === 0 ? fallback : this.items[Math.floor(rnd() * this.items.length)];
  }
}

const pickOf = (rnd, list) => list[Math.floor(rnd() * list.length)];

/**
 * A mutator of one rendered stream of records. `mutate(rec, t)` returns the
 * lines to write in its place: the record as given, mutated, twice, or beside
 * a junk line. Same seed, same mutations.
 */
export function fuzzer(rnd, share) {
  const recent = { session: new Recent(64), stream: new Recent(64), event: new Recent(256), request: new Recent(128), principal: new Recent(16) };
  const fieldFrom = (field) =>
    ({ session: recent.session, stream: recent.stream, new_stream: recent.stream, event_id: recent.event, last_event_id: recent.event, first_replayed: recent.event, oldest_retained: recent.event, request_id: recent.request, rpc_id: recent.request, principal: recent.principal })[field];

  function note(rec) {
    recent.session.note(rec.session);
    recent.stream.note(rec.stream);
    recent.event.note(rec.event_id);
    recent.request.note(rec.request_id);
    recent.principal.note(rec.principal);
  }

  function mutateOne(rec, t) {
    const r = { ...rec };
    switch (Math.floor(rnd() * 9)) {
      case 0: { // an id of another session, stream, event or request: a collision
        const field = pickOf(rnd, MUTATED_FIELDS.filter((f) => fieldFrom(f) !== undefined));
        r[field] = fieldFrom(field).pick(rnd, r[field]);
        break;
      }
      case 1: // a field the record needs, missing
        delete r[pickOf(rnd, ['session', 'stream', 'event_id', 'last_event_id', 'request_id', 'decision', 'kind'])];
        break;
      case 2: // a field of the wrong type, or at an edge
        r[pickOf(rnd, MUTATED_FIELDS)] = pickOf(rnd, ODD_VALUES);
        break;
      case 3:
        r.kind = pickOf(rnd, KINDS);
        break;
      case 4:
        r.decision = pickOf(rnd, DECISIONS);
        r.status = pickOf(rnd, STATUSES);
        break;
      case 5: // a counter far off what was sent
        r.replayed = Math.floor(rnd() * 1e6);
        r.reemitted = Math.floor(rnd() * 50);
        break;
      case 6: // late by up to a minute: the file is out of time order here
        return [{ rec: r, t: t - Math.floor(rnd() * 60_000) }];
      case 7: // logged twice
        return [{ rec: r, t }, { rec: r, t }];
      default: // fields no adapter knows
        r.extra_field = pickOf(rnd, ODD_VALUES);
        r['mcp-session-id'] = recent.session.pick(rnd, 'x');
        break;
    }
    return [{ rec: r, t }];
  }

  return {
    /** The records (with their times) to write for `rec`; undefined-free, possibly mutated. */
    mutate(rec, t) {
      note(rec);
      return rnd() < share ? mutateOne(rec, t) : [{ rec, t }];
    },
    /** A junk line (text, written as is) to write before the next record, or undefined. */
    junk(line) {
      if (rnd() >= share / 5) return undefined;
      switch (Math.floor(rnd() * 5)) {
        case 0: return line.slice(0, Math.floor(rnd() * line.length)); // cut short
        case 1: return 'Dec  5 10:00:00 host kernel: oom-killer invoked';
        case 2: return '';
        case 3: return '{"ts": "not a time", "kind": "upgrade", "session": 12}';
        default: return JSON.stringify({ ts: new Date(0).toISOString(), kind: 'event.sent', blob: 'y'.repeat(20_000) });
      }
    },
  };
}
