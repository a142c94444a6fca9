import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { withExactIntegers } from '../../src/normalize/exact-integers.js';
import { parseTime } from '../../src/normalize/time.js';
import { T0, T0_MS, ingestLines, recordOf, rejectionOf, rows } from './support.js';

// log-format.md: `ts` is an RFC 3339 string or epoch milliseconds; event ids
// are opaque strings or integers, and 1204 and "1204" are the same id.

describe('times', () => {
  it.each([
    ['UTC with milliseconds', '2026-11-09T10:00:00.000Z'],
    ['UTC without fraction', '2026-11-09T10:00:00Z'],
    ['a positive offset', '2026-11-09T11:00:00+01:00'],
    ['a negative offset', '2026-11-09T05:00:00.000-05:00'],
    ['lower-case t and z', '2026-11-09t10:00:00z'],
    ['a space for the T', '2026-11-09 10:00:00Z'],
    ['nanoseconds (Go, OpenTelemetry)', '2026-11-09T10:00:00.000000000Z'],
  ])('RFC 3339, %s', (_what, ts) => {
    expect(recordOf({ ts, kind: 'session.created', session: 'S1' }).tsMs).toBe(T0_MS);
  });

  // README "Times beyond RFC 3339's letter": a form outside RFC 3339's grammar is read where it can mean one instant only.
  it.each([
    ['an hour-only offset (ISO 8601, as PostgreSQL writes it)', '2026-11-09T12:00:00.000+02'],
    ['a negative hour-only offset', '2026-11-09 05:00:00-05'],
    ['a decimal comma (ISO 8601)', '2026-11-09T10:00:00,000Z'],
    ["Go's time.Time.String()", '2026-11-09 10:00:00.000 +0000 UTC'],
    ["Go's time.Time.String() in a named zone", '2026-11-09 11:00:00 +0100 CET'],
    ["Go's time.Time.String() where the zone has no abbreviation", '2026-11-09 13:00:00 +0300 +03'],
    ["Go's time.Now().String(), with its monotonic clock reading", '2026-11-09 10:00:00 +0000 UTC m=+4.000123456'],
    ['an abbreviation the offset contradicts: the offset decides', '2026-11-09 10:00:00 +0000 PST'],
    ['a space before the offset', '2026-11-09 11:00:00.000 +01:00'],
    ['the word UTC', '2026-11-09 10:00:00.000 UTC'],
    ['the word GMT', '2026-11-09T10:00:00 GMT'],
  ])('beyond RFC 3339, %s', (_what, ts) => {
    expect(recordOf({ ts, kind: 'session.created', session: 'S1' }).tsMs).toBe(T0_MS);
  });

  // RFC 3339 §5.6: time-second may be 60. Milliseconds since 1970 have no 61st second: the leap second is its
  // minute's last instant, after every other time of that minute and before the next.
  it.each([
    ['in UTC', '2026-11-09T09:59:60Z'],
    ['with a fraction', '2026-11-09T09:59:60.500Z'],
    ['with a decimal comma', '2026-11-09T09:59:60,5Z'],
    ['in an offset, not at UTC midnight (RFC 3339 allows it; which minutes had one is not the reader’s to know)', '2026-11-09T01:59:60.250-08:00'],
  ])('reads a leap second %s as :59.999 of its minute', (_what, ts) => {
    expect(recordOf({ ts, kind: 'session.created', session: 'S1' }).tsMs).toBe(T0_MS - 1);
  });

  it('orders the records of a leap second by its fraction, after the minute before and before the next', async () => {
    const { db } = await ingestLines([
      { ts: '2026-11-09T09:59:59.999Z', kind: 'session.created', session: 'a' },
      { ts: '2026-11-09T09:59:60.750Z', kind: 'session.created', session: 'c' },
      { ts: '2026-11-09T09:59:60.250Z', kind: 'session.created', session: 'b' },
      { ts: '2026-11-09T10:00:00.000Z', kind: 'session.created', session: 'd' },
    ]);
    const sessions = rows(db, 'SELECT session FROM records ORDER BY ts_ms, id') as { session: string }[];
    expect(sessions.map((r) => r.session).join(', ')).toBe('a, b, c, d');
  });

  // parseTime keeps the last second it parsed for the next line's milliseconds; these seconds are not kept.
  it('reads every time in a leap second as :59.999, the line before it in that second notwithstanding', () => {
    expect([parseTime('2026-11-09T09:59:60.000Z'), parseTime('2026-11-09T09:59:60.700Z')]).toEqual([T0_MS - 1, T0_MS - 1]);
  });

  it('reads 24:00:00.000 as the next midnight and still rejects 24:00:00.500 on the line after it', () => {
    expect(parseTime('2026-11-08T24:00:00.000Z')).toBe(Date.parse('2026-11-09T00:00:00.000Z'));
    expect(parseTime('2026-11-08T24:00:00.500Z')).toBeUndefined();
  });

  it('takes the digits below the millisecond after a comma, and none from a monotonic clock reading', () => {
    expect(recordOf({ ts: '2026-11-09T10:00:00,000700Z', kind: 'session.created', session: 'S1' }).tsSubMs).toBe(0.7);
    expect(recordOf({ ts: '2026-11-09 10:00:00 +0000 UTC m=+0.000123456', kind: 'session.created', session: 'S1' }).tsSubMs).toBeUndefined();
  });

  it.each([
    ['a one-digit offset', '2026-11-09T10:00:00+2', 'unparsable time "2026-11-09T10:00:00+2"'],
    ['a three-digit offset', '2026-11-09T10:00:00+123', 'unparsable time "2026-11-09T10:00:00+123"'],
    ['second 61', '2026-11-09T10:00:61Z', 'unparsable time "2026-11-09T10:00:61Z": not a valid date'],
    ['minute 60', '2026-11-09T10:60:00Z', 'unparsable time "2026-11-09T10:60:00Z": not a valid date'],
    ['a leap second of minute 60', '2026-11-09T10:60:60Z', 'unparsable time "2026-11-09T10:60:60Z": not a valid date'],
    ['a leap second without an offset', '2026-11-09T10:00:60', 'time "2026-11-09T10:00:60" has no zone offset (RFC 3339 needs Z or ±hh:mm)'],
    ['an offset hour past 23', '2026-11-09T10:00:00+25', 'unparsable time "2026-11-09T10:00:00+25": not a valid date'],
    ['a day past its month, in words', '2026-02-30 10:00:00 UTC', 'unparsable time "2026-02-30 10:00:00 UTC": not a valid date'],
    // POSIX TZ reads UTC+2 as two hours west, ISO 8601 as two hours east
    ['UTC with an offset after it', '2026-11-09 10:00:00 UTC+2', 'unparsable time "2026-11-09 10:00:00 UTC+2"'],
  ])('near miss: rejects %s', (_what, ts, reason) => {
    expect(rejectionOf({ ts, kind: 'session.created', session: 'S1' })).toBe(`session.created: ${reason}`);
  });

  it.each(['2026-11-09 10:00:00.000 PST', '2026-11-09T10:00:00IST'])('rejects a zone abbreviation without an offset, and says why: %s', (ts) => {
    const zone = ts.slice(-3);
    expect(rejectionOf({ ts, kind: 'session.created', session: 'S1' })).toBe(
      `session.created: time "${ts}" names its zone "${zone}" but no offset: an abbreviation can stand for several (IST for India's, Ireland's or Israel's), and RFC 3339 needs Z or ±hh:mm`,
    );
  });

  it('reads a run of times in log order exactly as a fresh parse of each would', () => {
    // parseTime keeps the last second it parsed; a run of nearby times, before
    // and after 1970, with other shapes mixed in, must each read as Date.parse reads it.
    const iso = fc.date({ min: new Date('1969-12-31T23:58:00Z'), max: new Date('2026-11-09T10:02:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    const near = fc.integer({ min: 0, max: 3000 }).map((ms) => new Date(Date.parse('1969-12-31T23:59:59.000Z') + ms).toISOString());
    const other = fc.constantFrom('2026-11-09T10:00:00Z', '2026-11-09t10:00:00.000z', '2026-11-09T10:00:00.5Z', '2026-11-09T10:00:00.0x0Z', '2026-13-09T10:00:00.000Z');
    fc.assert(
      fc.property(fc.array(fc.oneof(iso, near, near, other), { maxLength: 40 }), (times) => {
        for (const t of times.sort()) expect(parseTime(t)).toBe(/x|-13-/.test(t) ? undefined : Date.parse(t));
      }),
      { numRuns: 300 },
    );
  });

  // A logger writing milliseconds truncates: .000Z is some instant in that millisecond, not its start,
  // so it keeps its place among finer times.
  it.each([
    ['by the digits below it', '2026-11-09T10:00:00.000500Z', 'early, middle, late'],
    ['keeping a time written to the millisecond in its place', '2026-11-09T10:00:00.000Z', 'early, middle, late'],
  ])('orders records within one millisecond %s', async (_what, middle, order) => {
    const { db } = await ingestLines([
      { ts: '2026-11-09T10:00:00.000700Z', kind: 'session.created', session: 'late' },
      { ts: middle, kind: 'session.created', session: 'middle' },
      { ts: '2026-11-09T10:00:00.000200Z', kind: 'session.created', session: 'early' },
    ]);
    const sessions = rows(db, 'SELECT session FROM records ORDER BY ts_ms, id') as { session: string }[];
    expect(sessions.map((r) => r.session).join(', ')).toBe(order);
  });

  it('keeps milliseconds', () => {
    expect(recordOf({ ts: '2026-11-09T10:00:00.123+00:00', kind: 'session.created', session: 'S1' }).tsMs).toBe(T0_MS + 123);
  });

  it('epoch milliseconds as a number', () => {
    expect(recordOf({ ts: T0_MS + 7, kind: 'session.created', session: 'S1' }).tsMs).toBe(T0_MS + 7);
  });

  it('the same instant written both ways sorts as one', async () => {
    const { db } = await ingestLines([
      { ts: T0_MS, kind: 'session.created', session: 'S1' },
      { ts: '2026-11-09T11:00:00.000+01:00', kind: 'session.terminated', session: 'S1' },
    ]);
    expect(rows(db, 'SELECT DISTINCT ts_ms FROM records')).toEqual([{ ts_ms: T0_MS }]);
  });

  // RFC 3339 requires an offset: a zone-less time would be one instant in New York and
  // another in Tokyo, and merging two nodes' files on a guess invents orderings.
  it('rejects a time without a zone offset, and says so', () => {
    expect(parseTime('2026-11-09T10:00:00.000')).toBeUndefined();
    expect(rejectionOf({ ts: '2026-11-09 10:00:00', kind: 'session.created', session: 'S1' })).toBe(
      'session.created: time "2026-11-09 10:00:00" has no zone offset (RFC 3339 needs Z or ±hh:mm)',
    );
  });

  it.each([
    ['words', 'yesterday'],
    ['a US date', '11/09/2026 10:00'],
    ['an impossible month and hour', '2026-13-45T99:00:00Z'],
    ['an empty string', ''],
  ])('rejects %s', (_what, ts) => {
    expect(rejectionOf({ ts, kind: 'session.created', session: 'S1' })).toMatch(/unparsable time/);
  });

  it('rejects a day past the end of its month, which Date.parse would move into the next month', () => {
    for (const ts of ['2026-02-30T10:00:00Z', '2026-04-31T10:00:00.000Z', '2025-02-29T00:00:00Z']) {
      expect(rejectionOf({ ts, kind: 'session.created', session: 'S1' }), ts).toBe(`session.created: unparsable time "${ts}": not a valid date`);
    }
  });

  // zap's EpochNanos, an OTel SDK's dump: read as milliseconds they fall past year 9999. Still rejected (a unit
  // guessed from a number's size is a guess), but the reason names the unit and the time it would be.
  it.each([
    ['microseconds, a number', T0_MS * 1000, 'microseconds'],
    ['nanoseconds, a number', T0_MS * 1e6, 'nanoseconds'],
    ['nanoseconds, a string', `${T0_MS}000000`, 'nanoseconds'],
  ])('rejects epoch %s, naming the unit', (_what, ts, unit) => {
    expect(rejectionOf({ ts, kind: 'session.created', session: 'S1' })).toBe(
      `session.created: unparsable time ${JSON.stringify(ts)}: out of range (after year 9999); it looks like epoch ${unit} (${T0}): log epoch milliseconds or RFC 3339`,
    );
  });

  it('near miss: a number past year 9999 that is no finer unit of a time either says only that', () => {
    expect(rejectionOf({ ts: 1e308, kind: 'session.created', session: 'S1' })).toBe('session.created: unparsable time 1e+308: out of range (after year 9999)');
  });

  it('near miss: reads the last day of each month, a leap day included', () => {
    expect(parseTime('2024-02-29T10:00:00Z')).toBe(Date.parse('2024-02-29T10:00:00Z'));
    expect(parseTime('2026-01-31T10:00:00.000Z')).toBe(Date.parse('2026-01-31T10:00:00.000Z'));
    expect(parseTime('2026-04-30 10:00:00+02:00')).toBe(Date.parse('2026-04-30T10:00:00+02:00'));
  });

  it.each([
    ['a boolean', true],
    ['an object', { seconds: 1 }],
    ['a negative number', -5],
  ])('rejects a time that is %s', (_what, ts) => {
    expect(rejectionOf({ ts, kind: 'session.created', session: 'S1' })).toMatch(/\bts\b|time/);
  });
});

describe('event and request ids', () => {
  it('an integer and its string are one id in every id field', () => {
    const a = recordOf({ ts: T0, kind: 'upgrade', session: 'S1', last_event_id: 1204, first_replayed: 1205, decision: 'resume', status: 200 });
    const b = recordOf({ ts: T0, kind: 'upgrade', session: 'S1', last_event_id: '1204', first_replayed: '1205', decision: 'resume', status: 200 });
    expect([a.lastEventId, a.firstReplayed]).toEqual([b.lastEventId, b.firstReplayed]);
    expect(recordOf({ ts: T0, kind: 'buffer.trimmed', session: 'S1', oldest_retained: 90 }).oldestRetained).toBe('90');
    expect(recordOf({ ts: T0, kind: 'request.answered', session: 'S1', request_id: 7, status: 200 }).requestId).toBe('7');
  });

  // JSON.parse rounds an integer above 2^53: three snowflake ids became one, a false event-id-regression.
  it('an integer id beyond 2^53 keeps every digit, in a field or in a list of ids', () => {
    const at = `"ts":"${T0}"`;
    expect(recordOf(`{${at},"kind":"event.sent","session":"S1","stream":"g1","event_id":1790000000000000003}`).eventId).toBe('1790000000000000003');
    const u = recordOf(
      `{${at},"kind":"upgrade","session":"S1","last_event_id": 9007199254740993,"decision":"resume","status":200,"replayed_ids":[9007199254740995, 9007199254740997]}`,
    );
    expect([u.lastEventId, u.replayedIds]).toEqual(['9007199254740993', ['9007199254740995', '9007199254740997']]);
  });

  it('near miss: a time that large stays a number, and a string or a safe integer is read as ever', () => {
    // epoch nanoseconds as numbers: times, for the readers of the formats that write them, not ids
    const times = '{"ts":1794218405500250000,"timeUnixNano":1794218405500250000,"sizes":{"bytes":[18446744073709551615]}}';
    expect(withExactIntegers(times)).toBe(times);
    expect(recordOf(`{"ts":"${T0}","kind":"event.sent","session":"S1","stream":"g1","event_id":"x:1790000000000000001,"}`).eventId).toBe(
      'x:1790000000000000001,',
    );
    expect(recordOf(`{"ts":"${T0}","kind":"event.sent","session":"S1","stream":"g1","event_id":9007199254740991}`).eventId).toBe('9007199254740991');
  });

  it('an id that is not a digit string stays as written', () => {
    expect(recordOf({ ts: T0, kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 'g1_00042' }).eventId).toBe('g1_00042');
  });

  it('a resumption from a header string finds the event logged with an integer id', async () => {
    const { db } = await ingestLines([
      { ts: T0, kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' },
      { ts: T0, kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1204 },
      { ts: T0, kind: 'upgrade', session: 'S1', last_event_id: '1204', new_stream: 'g2', decision: 'resume', status: 200 },
    ]);
    // No `stream` on the upgrade: the lineage is found through the event id alone.
    expect(rows(db, 'SELECT stream, lane, superseded_id FROM streams ORDER BY stream')).toEqual([
      { stream: 'g1', lane: 'g1', superseded_id: 3 },
      { stream: 'g2', lane: 'g1', superseded_id: null },
    ]);
  });

  it('an answer with a string id resolves the request sent with an integer id', async () => {
    const { db } = await ingestLines([
      { ts: T0, kind: 'request.sent', session: 'S1', stream: 'g1', request_id: 7, method: 'roots/list' },
      { ts: T0, kind: 'request.answered', session: 'S1', request_id: '7', status: 202 },
    ]);
    expect(rows(db, 'SELECT request_id, answered_id FROM requests')).toEqual([{ request_id: '7', answered_id: 2 }]);
  });
});
