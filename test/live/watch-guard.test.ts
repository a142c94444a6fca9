import { writeFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, exitWithin, findingsOf, killAll, resumescope } from './cli.js';
import { rec, tempDir } from './support.js';

// `watch --fail-on` as a soak-test guard, through the built binary: its exit code is what a CI step reads.

beforeAll(() => assertBuilt());

const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(async () => {
  await killAll();
  for (const d of dirs.splice(0)) d.remove();
});

function folder(): ReturnType<typeof tempDir> {
  const d = tempDir();
  dirs.push(d);
  return d;
}

/**
 * A sampling request on a GET stream that the server closed with reason poll, the log cut 500 ms
 * later: the request is orphaned (error) only "when the log ends", so the finding is announced by the
 * run's last round, after --idle-exit has begun to stop it.
 */
const CUT = [
  rec(0, { kind: 'session.created', session: 'C1', principal: 'tok:a', node: 'n1', protocol_version: '2025-11-25' }),
  rec(5, { kind: 'upgrade', session: null, last_event_id: null, decision: 'fresh', status: 200, new_session: 'C1', principal: 'tok:a', node: 'n1' }),
  rec(20, { kind: 'stream.opened', session: 'C1', stream: 'g1', via: 'get', principal: 'tok:a', node: 'n1' }),
  rec(21, { kind: 'upgrade', session: 'C1', last_event_id: null, new_stream: 'g1', decision: 'attach', status: 200, replayed: 0, reemitted: 0, cancelled: 0, principal: 'tok:a', node: 'n1' }),
  rec(30, { kind: 'event.sent', session: 'C1', stream: 'g1', event_id: 1, priming: true, node: 'n1' }),
  rec(9000, { kind: 'event.sent', session: 'C1', stream: 'g1', event_id: 2, rpc_kind: 'request', rpc_id: 's1', method: 'sampling/createMessage', node: 'n1' }),
  rec(9000, { kind: 'request.sent', session: 'C1', stream: 'g1', request_id: 's1', method: 'sampling/createMessage', event_id: 2, node: 'n1' }),
  rec(9500, { kind: 'stream.closed', session: 'C1', stream: 'g1', reason: 'poll', retry_ms: 1000, node: 'n1' }),
].join('');

describe('watch --fail-on: the exit code is the worst of what was announced', () => {
  it('exits 1 for a violation announced by the last round of a run that --idle-exit stopped', async () => {
    const file = folder().file('cut.ndjson');
    writeFileSync(file, CUT);
    const w = resumescope(['watch', '--format', 'ndjson', '--fail-on', 'error', '--idle-exit', '800ms', file]);
    expect(await exitWithin(w, 10_000)).toBe(1);
    expect(findingsOf(w).map((f) => f.rule)).toEqual(['orphaned-request']);
    expect(w.stderr()).toContain('stopped: orphaned-request (error) in session C1 is at or above --fail-on error');
  });

  it('exits 1 for such a violation at --exit-after too', async () => {
    const file = folder().file('cut.ndjson');
    writeFileSync(file, CUT);
    const w = resumescope(['watch', '--format', 'ndjson', '--fail-on', 'warning', '--exit-after', '1s', file]);
    expect(await exitWithin(w, 10_000)).toBe(1);
    expect(findingsOf(w).map((f) => f.rule)).toEqual(['orphaned-request']);
  });

  it('exits 0 when the finding the last round announces is below --fail-on', async () => {
    const file = folder().file('cut.ndjson');
    writeFileSync(file, CUT);
    const w = resumescope(['watch', '--format', 'ndjson', '--fail-on', 'critical', '--idle-exit', '800ms', file]);
    expect(await exitWithin(w, 10_000)).toBe(0);
    expect(findingsOf(w).map((f) => f.rule)).toEqual(['orphaned-request']);
    expect(w.stderr()).not.toContain('stopped:');
  });
});
