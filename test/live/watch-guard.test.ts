import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, exitWithin, findingsOf, killAll, resumescope } from './cli.js';
import { rec, sleep, tempDir, waitFor } from './support.js';

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
 * A sampling request on a GET stream whose connection failed, the log cut 500 ms later: the request is orphaned (error) only "when the log ends", so the finding is announced by the
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
  rec(9500, { kind: 'stream.closed', session: 'C1', stream: 'g1', reason: 'error', node: 'n1' }),
].join('');

describe('watch --fail-on: the exit code is the worst of what was announced', () => {
  /** watch over the cut log, with these gate and stop flags. */
  const watchCut = (...flags: string[]) => {
    const file = folder().file('cut.ndjson');
    writeFileSync(file, CUT);
    return resumescope(['watch', '--format', 'ndjson', ...flags, file]);
  };

  it('exits 1 for a violation announced by the last round of a run that --idle-exit stopped', async () => {
    const w = watchCut('--fail-on', 'error', '--idle-exit', '800ms');
    expect(await exitWithin(w, 10_000)).toBe(1);
    expect(findingsOf(w).map((f) => f.rule)).toEqual(['orphaned-request']);
    expect(w.stderr()).toContain('stopped: orphaned-request (error) in session C1 is at or above --fail-on error');
  });

  it('exits 1 for such a violation at --exit-after too', async () => {
    const w = watchCut('--fail-on', 'warning', '--exit-after', '1s');
    expect(await exitWithin(w, 10_000)).toBe(1);
    expect(findingsOf(w).map((f) => f.rule)).toEqual(['orphaned-request']);
  });

  it('exits 0 when the finding the last round announces is below --fail-on', async () => {
    const w = watchCut('--fail-on', 'critical', '--idle-exit', '800ms');
    expect(await exitWithin(w, 10_000)).toBe(0);
    expect(findingsOf(w).map((f) => f.rule)).toEqual(['orphaned-request']);
    expect(w.stderr()).not.toContain('stopped:');
  });
});

describe('watch --fail-on over inputs that give nothing to judge: exit 2, each input named with why, as analyze does', () => {
  const guard = (...paths: string[]) => resumescope(['watch', '--format', 'ndjson', '--fail-on', 'error', '--idle-exit', '800ms', ...paths]);
  const records = rec(0, { kind: 'session.created', session: 'S1', principal: 'alice' }) + rec(1, { kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' });

  it('a path that never appeared', async () => {
    const file = folder().file('nosuch.ndjson');
    const w = guard(file);
    expect(await exitWithin(w, 10_000)).toBe(2);
    expect(w.stderr()).toContain(`${file}: unusable: cannot read (ENOENT: no such file or folder): it never appeared while followed`);
  });

  it('a path that appeared with records during the run passes (near miss)', async () => {
    const file = folder().file('later.ndjson');
    const w = resumescope(['watch', '--format', 'ndjson', '--fail-on', 'error', '--idle-exit', '1500ms', file]);
    await new Promise((r) => setTimeout(r, 300));
    writeFileSync(file, records);
    expect(await exitWithin(w, 10_000)).toBe(0);
    expect(w.stderr()).not.toContain('unusable');
  });

  it('a file of 0 bytes, and a file of rejected lines only', async () => {
    const d = folder();
    writeFileSync(d.file('empty.ndjson'), '');
    writeFileSync(d.file('bad.ndjson'), 'not json\n{"ts":"2026-11-09T10:00:00Z","kind":"bogus.kind","session":"S"}\n');
    const w = guard(d.file('empty.ndjson'), d.file('bad.ndjson'));
    expect(await exitWithin(w, 10_000)).toBe(2);
    expect(w.stderr()).toContain(`${d.file('empty.ndjson')}: unusable: no record lines (none of its 0 lines is a resumption record)`);
    expect(w.stderr()).toContain(`${d.file('bad.ndjson')}: unusable: no record lines (line 1: invalid JSON`);
  });

  it('a followed folder in which no log file appeared', async () => {
    const d = folder();
    mkdirSync(d.file('pods'));
    const w = guard(d.file('pods'));
    expect(await exitWithin(w, 10_000)).toBe(2);
    expect(w.stderr()).toContain(`${d.file('pods')}: unusable: no *.ndjson, *.jsonl, *.log or *.json file to follow appeared in the folder`);
  });

  it('one unusable input among usable ones still fails the guard', async () => {
    const d = folder();
    writeFileSync(d.file('good.ndjson'), records);
    const w = guard(d.file('good.ndjson'), d.file('nosuch.ndjson'));
    expect(await exitWithin(w, 10_000)).toBe(2);
    expect(w.stderr()).toContain(`${d.file('nosuch.ndjson')}: unusable`);
    expect(w.stderr()).not.toContain(`${d.file('good.ndjson')}: unusable`);
  });

  it('stdin that ends without a line', async () => {
    const w = resumescope(['watch', '--fail-on', 'error', '-']);
    w.child.stdin!.end();
    expect(await exitWithin(w, 10_000)).toBe(2);
    expect(w.stderr()).toContain('<stdin>: unusable: no record lines (none of its 0 lines is a resumption record)');
  });

  it('without --fail-on (a watch, not a guard) it says the same and exits 0 (near miss)', async () => {
    const file = folder().file('nosuch.ndjson');
    const w = resumescope(['watch', '--format', 'ndjson', '--idle-exit', '800ms', file]);
    expect(await exitWithin(w, 10_000)).toBe(0);
    expect(w.stderr()).toContain(`${file}: unusable: cannot read (ENOENT: no such file or folder): it never appeared while followed`);
  });
});

describe('watch --format ndjson: rejected lines are said on stderr, never dropped silently', () => {
  it('tells a file\'s first rejected line as it comes, and its count at the end of the run, with how to list them', async () => {
    const file = folder().file('server.ndjson');
    writeFileSync(file, rec(0, { kind: 'session.created', session: 'S1', principal: 'alice' }));
    const w = resumescope(['watch', '--format', 'ndjson', '--fail-on', 'error', '--idle-exit', '1500ms', file]);
    await new Promise((r) => setTimeout(r, 300));
    appendFileSync(file, 'not json\n' + rec(10, { kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' }) + '{"ts":"2026-11-09T10:00:00Z","kind":"bogus.kind"}\n');
    await waitFor('the first rejected line told', () => w.stderr().includes(`${file}: line 2 rejected (invalid JSON`), 5000);
    expect(w.exitCode()).toBeUndefined();
    expect(await exitWithin(w, 10_000)).toBe(0);
    expect(w.stderr()).toContain(`${file}: 2 of 4 lines rejected (first: line 2: invalid JSON`);
    expect(w.stderr()).toContain(`list them: resumescope query rejected ${file}`);
  });

  it('says nothing of a file without rejected lines (near miss)', async () => {
    const file = folder().file('server.ndjson');
    writeFileSync(file, rec(0, { kind: 'session.created', session: 'S1', principal: 'alice' }));
    const w = resumescope(['watch', '--format', 'ndjson', '--fail-on', 'error', '--idle-exit', '800ms', file]);
    expect(await exitWithin(w, 10_000)).toBe(0);
    expect(w.stderr()).not.toContain('rejected');
  });
});

describe('watch --fail-on over two nodes\' files, one of whose lines arrive late: the gate fails on what analyze of the final logs finds', () => {
  // node-a writes U1 and closes it at 1.9 s; node-b resumes it from event 2 at 2.0 s (one session store). node-a's
  // close reaches its file after node-b's lines, as through a lagging shipper.
  const A = { session: 'S-1', node: 'node-a' };
  const NODE_A =
    rec(0, { kind: 'session.created', ...A, principal: 'tok:a' }) +
    rec(10, { kind: 'stream.opened', ...A, stream: 'U1', via: 'get' }) +
    rec(100, { kind: 'event.sent', ...A, stream: 'U1', event_id: 1 }) +
    rec(200, { kind: 'event.sent', ...A, stream: 'U1', event_id: 2 });
  const NODE_A_CLOSE = rec(1900, { kind: 'stream.closed', ...A, stream: 'U1', reason: 'error' });
  const NODE_B =
    rec(2000, { kind: 'upgrade', session: 'S-1', node: 'node-b', last_event_id: 2, stream: 'U1', new_stream: 'U2', decision: 'resume', status: 200, replayed: 0, reemitted: 0, principal: 'tok:a' }) +
    rec(2001, { kind: 'stream.opened', session: 'S-1', node: 'node-b', stream: 'U2', via: 'get' });

  const guardNodes = (idleExit: string) => {
    const d = folder();
    writeFileSync(d.file('node-a.ndjson'), NODE_A);
    writeFileSync(d.file('node-b.ndjson'), NODE_B);
    const w = resumescope(['watch', '--format', 'ndjson', '--shared-session-store', '--fail-on', 'error', '--idle-exit', idleExit, d.file('node-a.ndjson'), d.file('node-b.ndjson')]);
    return { w, nodeA: d.file('node-a.ndjson') };
  };

  it('passes when node-a\'s close, timed before the takeover, arrives a second later: no dual-writer', async () => {
    const { w, nodeA } = guardNodes('3s');
    // Well within the settle period (5 s) of the first round, which judges node-b's takeover without the close.
    await sleep(1000);
    appendFileSync(nodeA, NODE_A_CLOSE);
    expect(await exitWithin(w, 20_000)).toBe(0);
    expect(findingsOf(w)).toEqual([]);
    expect(w.stderr()).not.toContain('stopped:');
  });

  it('still stops with 1 on the dual-writer when no close comes (near miss)', async () => {
    const { w } = guardNodes('30s');
    expect(await exitWithin(w, 20_000)).toBe(1);
    expect(findingsOf(w).map((f) => f.rule)).toEqual(['dual-writer']);
    expect(w.stderr()).toContain('stopped: dual-writer (error) in session S-1 is at or above --fail-on error');
  });
});
