import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/api.js';
import { PARTIAL_LINE } from '../../src/normalize/envelopes.js';
import { LinePieces, MAX_LINES_HELD, PIECES_PAST_END, PIECES_TOO_FAR } from '../../src/pipeline/line-pieces.js';
import { LineNormalizer } from '../../src/normalize/normalize-line.js';
import { logSource } from '../helpers/logs.js';
import { load } from '../formats/rows.js';

// A container runtime writes a line longer than its limit (16 KiB by default) as pieces: CRI tags
// all but the last `P`, Docker's json-file driver leaves their log without its newline. An
// `upgrade` that logs thousands of replayed ids is such a line, and read piece by piece it was lost.

const json = (o: object) => JSON.stringify(o);
const time = (ms: number) => new Date(Date.parse('2026-11-09T10:00:01Z') + ms).toISOString().replace('Z', '123456Z');
const cri = (text: string, tag = 'F', stream = 'stdout', ms = 0) => `${time(ms)} ${stream} ${tag} ${text}`;
const docker = (log: string, stream = 'stdout', ms = 0) => json({ log, stream, time: time(ms) });

const created = { ts: '2026-11-09T10:00:00.100Z', kind: 'session.created', session: 'S1', node: 'mcp-a' };
const opened = { ts: '2026-11-09T10:00:00.200Z', kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get', node: 'mcp-a' };
/** A resumption replaying 5,000 events: about 44 KB, three pieces at 16 KiB. */
const upgrade = {
  ts: '2026-11-09T10:00:00.300Z', kind: 'upgrade', session: 'S1', stream: 'g1', new_stream: 'g2', node: 'mcp-a', last_event_id: 'e-0',
  decision: 'resume', status: 200, replayed: 5000, first_replayed: 'e-1', replayed_ids: Array.from({ length: 5000 }, (_, i) => `e-${i + 1}`),
};
const after = { ts: '2026-11-09T10:00:00.400Z', kind: 'stream.closed', session: 'S1', stream: 'g1', node: 'mcp-a' };

/** `text` cut into pieces of at most `size` characters, as a runtime cuts it. */
const cut = (text: string, size = 16 * 1024) => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
const criPieces = (text: string, stream = 'stdout') => cut(text).map((p, i, all) => cri(p, i === all.length - 1 ? 'F' : 'P', stream, i));
const dockerPieces = (text: string, stream = 'stdout') => cut(text).map((p, i, all) => docker(i === all.length - 1 ? `${p}\n` : p, stream, i));

describe("lines a container runtime split: joined before they are read", () => {
  it('reads a CRI or Docker line in pieces as the one record it is, on the line of its first piece', async () => {
    const plain = await load([created, opened, upgrade, after]);
    for (const pieces of [criPieces, dockerPieces]) {
      const wrap = pieces === criPieces ? (o: object) => cri(json(o)) : (o: object) => docker(`${json(o)}\n`);
      const split = pieces(json(upgrade));
      expect(split).toHaveLength(3);
      const got = await load([wrap(created), wrap(opened), ...split, wrap(after)]);
      expect(got.rows.map(({ line: _l, ...r }) => r)).toEqual(plain.rows.map(({ line: _l, ...r }) => r));
      expect(got.rows.map((r) => r.line)).toEqual([1, 2, 3, 6]);
      // The pieces after the first hold no line of their own: counted as ignored, none lost.
      expect(got.stats).toMatchObject({ lines: 6, recordLines: 3 + 1, records: 4, ignored: 2, rejected: 0 });
    }
  });

  it("joins each stream's pieces on their own when stderr writes between them, and keeps the lines in order", async () => {
    const [p1, p2, p3] = criPieces(json(upgrade));
    const got = await load([cri(json(created)), p1!, cri('warning: slow disk', 'F', 'stderr'), p2!, cri(json(opened), 'F', 'stderr'), p3!, cri(json(after))]);
    expect(got.rows.map((r) => [r.line, r.kind])).toEqual([
      [1, 'session.created'],
      [5, 'stream.opened'],
      [2, 'upgrade'],
      [7, 'stream.closed'],
    ]);
    expect(got.stats).toMatchObject({ lines: 7, records: 4, ignored: 3, rejected: 0 });
  });

  it('stores the joined line redacted where a credential straddles two pieces', async () => {
    const secret = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';
    const rec = json({ ...created, headers: { authorization: `Bearer ${secret}` } });
    const at = rec.indexOf(secret) + 20;
    const ws = await loadWorkspace([logSource([cri(rec.slice(0, at), 'P'), cri(rec.slice(at))])]);
    try {
      const raw = ws.db.prepare('SELECT raw FROM records').pluck().all() as string[];
      expect(raw).toHaveLength(1);
      expect(raw[0]).not.toContain(secret.slice(0, 20));
      expect(raw[0]).not.toContain(secret.slice(20));
      expect(raw[0]).toMatch(/^\S+ stdout F \{/);
    } finally {
      ws.db.close();
    }
  });

  it('rejects the pieces of a line the file ends without, saying so; an unterminated last line that is whole is read', async () => {
    const [p1, p2] = dockerPieces(json(upgrade));
    const cutShort = await load([docker(`${json(created)}\n`), p1!, p2!]);
    expect(cutShort.rejected).toEqual([{ line: 2, reason: PIECES_PAST_END }, { line: 3, reason: PIECES_PAST_END }]);
    expect(cutShort.stats).toMatchObject({ lines: 3, records: 1, rejected: 2 });
    // A container that exits mid-line leaves its last line without a newline: whole, it is the record it is.
    const unterminated = await load([docker(`${json(created)}\n`), docker(json(opened))]);
    expect(unterminated.rows.map((r) => r.kind)).toEqual(['session.created', 'stream.opened']);
    expect(unterminated.stats).toMatchObject({ records: 2, rejected: 0 });
  });

  it('rejected pieces are redacted joined: a piece that starts with the value the piece before it named leaks nothing', () => {
    for (const [name, value] of [['authorization', 'QP01rawsecret'], ['password', 'QP02secretvalue']] as const) {
      const head = `{"ts":"2026-11-09T10:00:00Z","kind":"session.created","session":"S1","${name}":"`;
      const lines = [cri(head, 'P'), cri(`${value}", "z": "y`, 'P')];
      const pieces = new LinePieces();
      expect(pieces.push(lines.map((text, i) => ({ line: i + 1, text })))).toEqual([]);
      const out = pieces.end();
      expect(out).toHaveLength(2);
      expect(JSON.stringify(out)).not.toContain(value);
      expect(out[0]).toMatchObject({ line: 1, error: PIECES_PAST_END, preview: expect.stringContaining(`"${name}":"[redacted]`) });
      expect(out[1]).toMatchObject({ line: 2, error: PIECES_PAST_END, preview: expect.stringMatching(/ stdout P \[redacted\]$/) });
    }
    // a Docker piece, and a given-up line's later pieces, redacted after the piece before them
    const big = 'x'.repeat(17 * 1024 * 1024 / 4);
    const pieces = new LinePieces();
    const lines = [docker(`{"a":"${big}`), docker(big), docker(big), docker(`${big}","token":"`), docker('QP03given-up", "b":1'), docker('}\n')];
    const out = [...pieces.push(lines.map((text, i) => ({ line: i + 1, text }))), ...pieces.end()];
    expect(out).toHaveLength(6);
    expect(out.every((l) => 'error' in l)).toBe(true);
    expect(JSON.stringify(out)).not.toContain('QP03');
  });

  it('near miss: pieces with no credential are rejected as they were written', () => {
    const lines = [cri('{"ts":"2026-11-09T10:00:00Z","kind":"session.created","session_token_count":', 'P'), cri('3, "note": "token_fp"', 'P')];
    const pieces = new LinePieces();
    pieces.push(lines.map((text, i) => ({ line: i + 1, text })));
    expect(pieces.end()).toEqual(lines.map((preview, i) => ({ line: i + 1, error: PIECES_PAST_END, preview })));
  });

  it('gives a line up, rejecting its pieces, when its last piece is not within the lines held for it; every other line is read', async () => {
    const [p1, p2, p3] = criPieces(json(upgrade));
    // A stream's pieces come one after another: what comes between them is the other stream's.
    const events = Array.from({ length: MAX_LINES_HELD + 5 }, (_, i) =>
      cri(json({ ts: '2026-11-09T10:00:02Z', kind: 'event.sent', session: 'S1', stream: 'g1', event_id: `x${i}`, node: 'mcp-a' }), 'F', 'stderr'),
    );
    const got = await load([cri(json(created)), p1!, ...events, p2!, p3!]);
    expect(got.stats).toMatchObject({ lines: events.length + 4, records: events.length + 1, rejected: 3 });
    expect(new Set(got.rejected.map((r) => r.reason))).toEqual(new Set([PIECES_TOO_FAR]));
  });

  it('near miss: the rest of a line whose first piece is not in the file (a log rotated mid-line) is the other output it looks like', async () => {
    const [, p2, p3] = criPieces(json(upgrade));
    for (const lines of [[p2!, p3!], [p3!]]) {
      const got = await load([...lines, cri(json(created))]);
      expect(got.stats).toMatchObject({ lines: lines.length + 1, records: 1, rejected: 0, ignored: lines.length });
    }
  });

  it('near miss: a CRI line tagged F, and a Docker line ending in a backslash and an n, are whole lines', () => {
    const pieces = new LinePieces();
    const lines = [cri(json(created)), docker(`${json({ ...opened, note: 'a\\n' })}\n`), docker(`${json(after)}\\n`)];
    const out = pieces.push(lines.map((text, i) => ({ line: i + 1, text })));
    expect(out).toEqual([{ line: 1, text: lines[0] }, { line: 2, text: lines[1] }]);
    // the third's log ends in `\` `n`, no newline: a piece, whose file ends before its last
    expect(pieces.end()).toEqual([{ line: 3, error: PIECES_PAST_END, preview: lines[2] }]);
  });

  it('a line read on its own, without the joining (a caller normalizing line by line), is still a piece, rejected', () => {
    expect(new LineNormalizer().normalize(cri('{"ts":"2026-11-09T10:00:00Z","ki', 'P'))).toEqual({ type: 'rejected', reason: PARTIAL_LINE });
  });
});
