const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/** Epoch numbers below this are taken as seconds (Python's time.time()), above as milliseconds. */
const SECONDS_LIMIT = 1e11;

/** 9999-12-31T23:59:59.999Z: RFC 3339 has four year digits, and every report prints times in it. */
const MAX_MS = 253402300799999;

// Log times come in order, so most share their first 19 characters (down to
// the second) with the line before: for the common YYYY-MM-DDTHH:MM:SS.mmmZ
// shape the time is that second's, kept from the last full parse, plus the ms.
let second = { prefix: '', ms: 0 };

/** The milliseconds of a YYYY-MM-DDTHH:MM:SS.mmmZ time; undefined for any other shape. */
function millisOfCommonShape(v: string): number | undefined {
  if (v.length !== 24 || v.charCodeAt(19) !== 0x2e || v.charCodeAt(23) !== 0x5a) return undefined;
  const a = v.charCodeAt(20) - 48;
  const b = v.charCodeAt(21) - 48;
  const c = v.charCodeAt(22) - 48;
  if (a < 0 || a > 9 || b < 0 || b > 9 || c < 0 || c > 9) return undefined;
  return a * 100 + b * 10 + c;
}

/** Parses `ts` as RFC 3339 or epoch milliseconds; undefined when it is neither. */
export function parseTime(v: unknown): number | undefined {
  if (typeof v === 'string') {
    const millis = millisOfCommonShape(v);
    if (millis !== undefined && second.prefix !== '' && v.startsWith(second.prefix)) return second.ms + millis;
    const ms = parseTimeString(v);
    if (millis !== undefined && ms !== undefined) second = { prefix: v.slice(0, 19), ms: ms - millis };
    return ms;
  }
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v < 0) return undefined;
    const ms = Math.round(v < SECONDS_LIMIT ? v * 1000 : v);
    // A time past year 9999 (1e308, a nanosecond count taken for ms) is no instant a report can print.
    return ms > MAX_MS ? undefined : ms;
  }
  return undefined;
}

function parseTimeString(v: string): number | undefined {
  if (/^\d+(\.\d+)?$/.test(v)) return parseTime(Number(v));
  const m = RFC3339.exec(v);
  // RFC 3339 requires the offset. Without one the instant is a guess (local time of
  // which node?), and merging nodes on a guess invents orderings: such a time is rejected.
  if (!m || m[3] === undefined) return undefined;
  const ms = Date.parse(v.replace(' ', 'T'));
  return Number.isNaN(ms) || ms > MAX_MS || !isCalendarDay(v) ? undefined : ms;
}

/** Date.parse moves a day past the month's end into the next month (2026-02-30 is March 2nd): no such day is a time. */
function isCalendarDay(v: string): boolean {
  const day = Number(v.slice(8, 10));
  if (day <= 28) return true;
  const year = Number(v.slice(0, 4));
  const month = Number(v.slice(5, 7));
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The digits of an RFC 3339 time below the millisecond, as a fraction of one (".000700" gives 0.7). */
export function subMillisecond(v: unknown): number | undefined {
  if (typeof v !== 'string' || v.length <= 24) return undefined;
  const m = /\.\d{3}(\d+)/.exec(v);
  return m ? Number(`0.${m[1]}`) : undefined;
}

/** Why a `ts` value is not a time, for the rejected line's reason. */
export function timeProblem(v: unknown): string {
  const m = typeof v === 'string' ? RFC3339.exec(v) : null;
  if (m && m[3] === undefined) return `time ${JSON.stringify(v)} has no zone offset (RFC 3339 needs Z or ±hh:mm)`;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+(\.\d+)?$/.test(v) ? Number(v) : undefined;
  if (n !== undefined && (!Number.isFinite(n) || n >= 0)) return `unparsable time ${JSON.stringify(v)}: out of range (after year 9999)${finerUnit(n)}`;
  if (m) return `unparsable time ${JSON.stringify(v)}: not a valid date`;
  return `unparsable time ${JSON.stringify(v)}`;
}


/**
 * Epoch micro- or nanoseconds (zap's EpochNanos, an OTel SDK's dump, journald's) read as milliseconds fall past
 * year 9999: the unit, and the time it would be, so that the fix is plain. Not read so: a unit guessed from a
 * number's size is a guess, and seconds are guessed already.
 */
function finerUnit(n: number): string {
  for (const [unit, per] of [['microseconds', 1e3], ['nanoseconds', 1e6]] as const) {
    const ms = n / per;
    if (Number.isFinite(ms) && ms <= MAX_MS && ms >= SECONDS_LIMIT) {
      return `; it looks like epoch ${unit} (${new Date(Math.round(ms)).toISOString()}): log epoch milliseconds or RFC 3339`;
    }
  }
  return '';
}
