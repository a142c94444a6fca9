import { describe, expect, it } from 'vitest';
import { T0, ingestLines, outcomeOf, rejectionOf, rows } from './support.js';
import { loadWorkspace } from '../../src/api.js';
import { logSource } from '../helpers/logs.js';
import { unusableReason } from '../../src/store/source-sink.js';

// log-format.md "Which lines count": a record, an ignored line (valid JSON
// naming no known kind: counted, not stored), or a rejected line (stored with
// file, line and reason, and counted).

describe('ignored lines', () => {
  it.each([
    ['an application log line without any kind', { level: 'info', time: T0, msg: 'listening on :8080' }],
    ['alias candidates that name no known kind', { ts: T0, event: 'user.login', type: 'audit', msg: 'ok' }],
    ['alias candidates that are not strings', { ts: T0, event: { action: 'x' }, type: 3, msg: ['a'] }],
    ['an empty object', {}],
  ])('%s', (_what, line) => {
    expect(outcomeOf(line)).toEqual({ type: 'ignored' });
  });

  it.each([
    ['an array', '[1,2,3]'],
    ['a number', '42'],
    ['a string', '"server started"'],
    ['null', 'null'],
  ])('valid JSON that is %s has no kind: ignored', (_what, text) => {
    expect(outcomeOf(text)).toEqual({ type: 'ignored' });
  });

  it('a blank line is ignored', () => {
    expect(outcomeOf('   ')).toEqual({ type: 'ignored' });
  });
});

describe('rejected lines', () => {
  it('a canonical kind with an unknown value, naming the value', () => {
    expect(rejectionOf({ ts: T0, kind: 'stream.reopened', session: 'S1' })).toMatch(/unknown kind "stream\.reopened"/);
  });

  it('a canonical kind with an unknown value, even where an alias names a known kind', () => {
    expect(rejectionOf({ ts: T0, kind: 'audit', event: 'session.created', session: 'S1' })).toMatch(/unknown kind "audit"/);
  });

  it.each(['{"ts":"2026-11-09T10:00:00Z","kind":"session.created",', 'GET /mcp 200', '{ts: 1}'])('invalid JSON: %s', (text) => {
    expect(rejectionOf(text)).toMatch(/invalid JSON/);
  });

  it('an unparsable time, quoting it', () => {
    expect(rejectionOf({ ts: 'yesterday at noon', kind: 'session.created', session: 'S1' })).toMatch(/unparsable time "yesterday at noon"/);
  });

  it('a known kind without a time', () => {
    expect(rejectionOf({ msg: 'session.created', session: 'S1' })).toMatch(/session\.created: missing ts/);
  });
});

// A kind alias written almost right (`msg:"Upgrade"`, `request.timeout`) on a line that carries the kind's
// fields is a record the writer meant: ignored, it lost a critical finding among a mixed log's ignored lines.
describe('a kind alias that names a kind but for case, separators, a letter or its end', () => {
  const upgrade = { time: T0, session: 'S1', decision: 'resume', status: 200 };
  it.each([
    [{ ...upgrade, msg: 'Upgrade' }, 'unknown kind "Upgrade" in msg: did you mean "upgrade"? (kinds are case-sensitive)'],
    [{ time: T0, session: 'S1', request_id: 'r1', msg: 'request.timeout' }, 'unknown kind "request.timeout" in msg: did you mean "request.timed_out"? (kinds are case-sensitive)'],
    [{ time: T0, session: 'S1', stream: 'g1', event_id: 4, type: 'EVENT_SENT' }, 'unknown kind "EVENT_SENT" in type: did you mean "event.sent"? (kinds are case-sensitive)'],
    [{ time: T0, session: 'S1', stream: 'g1', via: 'get', event: 'stream.open' }, 'unknown kind "stream.open" in event: did you mean "stream.opened"? (kinds are case-sensitive)'],
  ])('%j is rejected, naming the kind meant', (line, reason) => {
    expect(outcomeOf(line)).toEqual({ type: 'rejected', reason });
  });

  it.each([
    ['a sentence that names a kind, on a line with none of its fields', { time: T0, msg: 'Session created', user: 'u1' }],
    ['another word of a family', { time: T0, session: 'S1', msg: 'session.login' }],
    ['a word far from any kind of its family', { time: T0, session: 'S1', request_id: 'r1', event: 'request.received' }],
    ['a family prefix alone', { time: T0, session: 'S1', type: 'request' }],
    ['another word built on a kind\'s', { time: T0, session: 'S1', stream: 'g1', type: 'stream.reopened' }],
    ['a logger\'s sentence', { time: T0, session: 'S1', msg: 'upgrade failed: session S1 not found' }],
  ])('%s stays an ignored line', (_what, line) => {
    expect(outcomeOf(line)).toEqual({ type: 'ignored' });
  });

  it('a canonical kind that names none says which it looks meant for', () => {
    expect(rejectionOf({ ts: T0, kind: 'EVENT.SENT', session: 'S1' })).toBe('unknown kind "EVENT.SENT": did you mean "event.sent"?');
    expect(rejectionOf({ ts: T0, kind: 'audit', session: 'S1' })).toBe('unknown kind "audit"');
  });
});

describe('what is stored and counted', () => {
  it('rejected lines keep file, line, reason and text; ignored lines are only counted', async () => {
    const bad = '{"kind":"session.created"';
    const { db, sources } = await ingestLines([
      { ts: T0, kind: 'session.created', session: 'S1' },
      { level: 'info', msg: 'hello' },
      bad,
      { ts: T0, kind: 'nope' },
    ]);
    expect(rows(db, 'SELECT file, line, reason, text FROM rejected_lines')).toEqual([
      { file: 'server.ndjson', line: 3, reason: expect.stringMatching(/^invalid JSON/), text: bad },
      { file: 'server.ndjson', line: 4, reason: 'unknown kind "nope"', text: '{"ts":"2026-11-09T10:00:00.000Z","kind":"nope"}' },
    ]);
    expect(rows(db, 'SELECT line, kind FROM records')).toEqual([{ line: 1, kind: 'session.created' }]);
    expect(sources[0]).toMatchObject({ lines: 4, recordLines: 1, records: 1, ignored: 1, rejected: 2, firstProblem: { line: 3 } });
  });

  it('a file without a single record is flagged unusable', async () => {
    const { isUnusable } = await import('../../src/store/source-sink.js');
    const { sources } = await ingestLines([{ msg: 'only app logs' }, { ts: T0, kind: 'nope' }]);
    expect(isUnusable(sources[0]!)).toBe(true);
  });
});

// A file none of whose lines is a record is unusable (log-format.md); the message names what was almost
// there, so that the fix is plain: a kind in `message` (winston's logger.info('upgrade', {…})), a `Kind` key.
describe('the message of a file with no record line', () => {
  async function reasonOf(name: string, lines: Parameters<typeof ingestLines>[0], opts: { csv?: boolean } = {}): Promise<string | undefined> {
    const ws = await loadWorkspace([logSource(lines, name)], opts);
    try {
      return unusableReason(ws.sources[0]!);
    } finally {
      ws.db.close();
    }
  }

  it('names a kind logged in `message`, and a key naming the kind in another case', async () => {
    expect(await reasonOf('w.ndjson', [{ level: 'info', message: 'hello' }, { level: 'info', message: 'upgrade', session: 'S1', timestamp: T0 }])).toBe(
      'no record lines (none of its 2 lines is a resumption record; line 2: "message" is "upgrade", a kind, but "message" names no kind: log it as "kind" (or "msg"))',
    );
    expect(await reasonOf('s.ndjson', [{ '@t': T0, Kind: 'session.created', session: 'S1' }])).toBe(
      'no record lines (its only line is no resumption record; line 1: "Kind" is no field (field names are case-sensitive): did you mean "kind"?)',
    );
  });

  it('says a CSV download holds only its header row', async () => {
    expect(await reasonOf('empty.csv', ['_time,_raw,host'], { csv: true })).toBe('no record lines (only a header row, no data rows: an empty CSV download)');
  });

  it('near miss: names nothing where nothing was almost a record', async () => {
    expect(await reasonOf('app.ndjson', [{ level: 'info', message: 'listening on :8080' }, { msg: 'upgrade failed' }])).toBe(
      'no record lines (none of its 2 lines is a resumption record)',
    );
  });
});
