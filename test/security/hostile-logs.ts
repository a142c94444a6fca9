import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Logs whose every id and name carries what a terminal or a browser would obey:
// ESC sequences (clear the screen, set the title), BEL, the one-byte CSI, NEL,
// a line break, bidi overrides and isolates (Trojan Source), and invisible
// characters that make two ids look the same (zero-width space, BOM). Made from
// the samples, so that the same findings fire and their messages, evidence,
// timelines and not-knowable reasons all quote hostile values.

export const EVIL = '\u001b[2J\u001b]0;pwn\u0007\u009b31m\u0085\n\u202e\u2066\u200bx\ufeff';

/** The characters no terminal format may print as themselves. */
// eslint-disable-next-line no-control-regex
export const RAW_HOSTILE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** Fields whose values reach reports: ids, names, reasons. */
const FIELDS = ['session', 'stream', 'new_stream', 'of_stream', 'principal', 'node', 'conn', 'reason', 'tool', 'aspect', 'incarnation', 'request_id', 'rpc_id', 'new_session'];
/** Event ids keep their digits in front: the numeric fallback still orders them, so the replay rules still fire. */
const EVENT_FIELDS = ['event_id', 'last_event_id', 'first_replayed', 'oldest_retained'];

function hostile(line: string): string {
  const rec = JSON.parse(line) as Record<string, unknown>;
  for (const f of FIELDS) if (typeof rec[f] === 'string' || typeof rec[f] === 'number') rec[f] = `${rec[f]}${EVIL}`;
  for (const f of EVENT_FIELDS) if (rec[f] !== null && rec[f] !== undefined) rec[f] = `${rec[f]}${EVIL}`;
  return JSON.stringify(rec);
}

export const HOSTILE_SAMPLES = ['samples/replay-integrity.ndjson', 'samples/writers.ndjson', 'samples/session-continuity.ndjson', 'samples/stream-vs-session.ndjson'];

/** The samples made hostile, and one file of lines that are rejected or ignored for what they hold (and one record, so that it is usable). */
export function writeHostileLogs(dir: string): string[] {
  const files = HOSTILE_SAMPLES.map((sample, i) => {
    const file = join(dir, `hostile-${i}.ndjson`);
    const lines = readFileSync(sample, 'utf8').split('\n').filter(Boolean);
    writeFileSync(file, lines.map(hostile).join('\n') + '\n');
    return file;
  });
  const broken = join(dir, `hostile-rejected.ndjson`);
  writeFileSync(
    broken,
    [
      JSON.stringify({ ts: '2026-11-09T10:00:00.000Z', kind: 'session.created', session: `s${EVIL}`, principal: `p${EVIL}` }),
      JSON.stringify({ ts: '2026-11-09T10:00:00.000Z', kind: `event.sent${EVIL}`, session: `s${EVIL}` }),
      JSON.stringify({ ts: `not a time${EVIL}`, kind: 'upgrade', session: `s${EVIL}` }),
      JSON.stringify({ ts: '2026-11-09T10:00:01.000Z', kind: 'stream.closed', session: `s${EVIL}` }),
      `{"raw ESC \u001b[2J and RLO \u202e in a line that is not JSON`,
      JSON.stringify({ ts: '2026-11-09T10:00:02.000Z', level: 'info', message: `app line ${EVIL}` }),
    ].join('\n') + '\n',
  );
  return [...files, broken];
}
