const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/**
 * Forms RFC 3339's grammar does not take that still name one instant (README, "Times beyond RFC 3339's letter"):
 * ISO 8601's decimal comma and hour-only offset (`+02`, as PostgreSQL writes it), a space before the offset, the
 * word UTC or GMT for Z, and Go's time.Time.String() (`2026-11-09 10:00:00.5 +0000 UTC m=+0.01`). Groups: date,
 * hh:mm, seconds, fraction, Z, offset hours, offset minutes.
 */
const DATE_TIME = String.raw`(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2})(?::(\d{2})(?:[.,](\d+))?)?`;
// After an offset, a zone abbreviation (Go's `UTC`, `CET`, or `+03` where the zone has none) is a label: the
// offset decides. Go's time.Now() adds its monotonic clock reading, which is no part of the instant.
const LABEL = String.raw`(?: (?:[A-Za-z]{1,6}|[+-]\d{2}(?:\d{2})?)(?: m=[+-]\d+\.\d+)?)?`;
const ZONE = String.raw`(?:([Zz])| ?([+-]\d{2})(?::?(\d{2}))?${LABEL}| (?:UTC|GMT|Z|utc|gmt))`;
const BEYOND_LETTER = new RegExp(`^${DATE_TIME}${ZONE}$`);

/** A zone abbreviation with no offset (`… 10:00:00 PST`): its group is the abbreviation. */
const NAMED_ZONE_ONLY = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)? ?([A-Za-z]{2,6})$/;

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
    if (millis !== undefined && ms !== undefined && isOrdinarySecond(v)) second = { prefix: v.slice(0, 19), ms: ms - millis };
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
  if (m && m[3] === undefined) return undefined;
  // Date.parse reads RFC 3339 but for its leap second; anything it does not read is tried as the other forms.
  const ms = m ? Date.parse(v.replace(' ', 'T')) : Number.NaN;
  const read = Number.isNaN(ms) ? parseBeyondLetter(v) : ms;
  return read === undefined || read > MAX_MS || !isCalendarDay(v) ? undefined : read;
}

/**
 * A time in one of BEYOND_LETTER's forms, or with RFC 3339's leap second (`23:59:60Z`, §5.6), rewritten as the
 * RFC 3339 Date.parse reads. A leap second is read as the last instant of its minute (:59.999): in the
 * milliseconds since 1970 that every report prints there is no 61st second, and :59.999 keeps it after
 * every time of that minute and before the next (its fraction orders the records within it: subMillisecond).
 */
function parseBeyondLetter(v: string): number | undefined {
  const m = BEYOND_LETTER.exec(v);
  if (!m) return undefined;
  const [, date, hhmm, seconds = '00', fraction, z, offsetHours, offsetMinutes = '00'] = m;
  const zone = z !== undefined || offsetHours === undefined ? 'Z' : `${offsetHours}:${offsetMinutes}`;
  const leap = seconds === '60';
  const ms = Date.parse(`${date}T${hhmm}:${leap ? '59' : seconds}${!leap && fraction !== undefined ? `.${fraction}` : ''}${zone}`);
  if (Number.isNaN(ms)) return undefined;
  return leap ? ms + 999 : ms;
}

/** Seconds 60 of a leap second: position 16 is the colon before them in every form read (YYYY-MM-DDTHH:MM:SS). */
function isLeapSecond(v: string): boolean {
  return v.charCodeAt(16) === 0x3a && v.charCodeAt(17) === 0x36 && v.charCodeAt(18) === 0x30;
}

/**
 * A second whose milliseconds are its start plus the digits: not a leap second (every fraction of it is :59.999)
 * nor ISO 8601's 24:00:00 (only .000 of it is a time), so parseTime may keep it for the next line.
 */
function isOrdinarySecond(v: string): boolean {
  return !isLeapSecond(v) && !(v.charCodeAt(11) === 0x32 && v.charCodeAt(12) === 0x34);
}

/** Date.parse moves a day past the month's end into the next month (2026-02-30 is March 2nd): no such day is a time. */
function isCalendarDay(v: string): boolean {
  const day = Number(v.slice(8, 10));
  if (day <= 28) return true;
  const year = Number(v.slice(0, 4));
  const month = Number(v.slice(5, 7));
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * The digits of a time below the millisecond, as a fraction of one (".000700" gives 0.7); for a leap second, read
 * as one millisecond (:59.999), its whole fraction (":60.5" gives 0.5), so that its records keep their order.
 */
export function subMillisecond(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const leap = isLeapSecond(v);
  if (v.length <= 24 && !leap) return undefined;
  // The fraction follows the seconds (YYYY-MM-DDTHH:MM:SS): Go's `m=+0.000123` after the zone is no part of the
  // time. Read by hand: this runs on every line with finer digits or an offset, and a regex costs twice as much.
  const point = v.charCodeAt(19);
  if (point !== 0x2e && point !== 0x2c) return undefined;
  let end = 20;
  while (end < v.length && v.charCodeAt(end) >= 0x30 && v.charCodeAt(end) <= 0x39) end++;
  const from = leap ? 20 : 23;
  return end > from ? Number(`0.${v.slice(from, end)}`) : undefined;
}

/** Why a `ts` value is not a time, for the rejected line's reason. */
export function timeProblem(v: unknown): string {
  const m = typeof v === 'string' ? RFC3339.exec(v) : null;
  if (m && m[3] === undefined) return `time ${JSON.stringify(v)} has no zone offset (RFC 3339 needs Z or ±hh:mm)`;
  const named = typeof v === 'string' ? NAMED_ZONE_ONLY.exec(v) : null;
  if (named && !/^(UTC|GMT)$/i.test(named[1]!)) {
    return `time ${JSON.stringify(v)} names its zone ${JSON.stringify(named[1])} but no offset: an abbreviation can stand for several (IST for India's, Ireland's or Israel's), and RFC 3339 needs Z or ±hh:mm`;
  }
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+(\.\d+)?$/.test(v) ? Number(v) : undefined;
  if (n !== undefined && (!Number.isFinite(n) || n >= 0)) return `unparsable time ${JSON.stringify(v)}: out of range (after year 9999)${finerUnit(n)}`;
  if (m || (typeof v === 'string' && BEYOND_LETTER.test(v))) return `unparsable time ${JSON.stringify(v)}: not a valid date`;
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
