import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, exitWithin, findingsOf, holdsOpen, killAll, resumescope } from './cli.js';
import { RAW_HOSTILE, writeHostileLogs } from '../security/hostile-logs.js';
import { healthyLines, rec, sleep, tempDir, violatingLine, waitFor } from './support.js';

// `resumescope watch` headless, through the built binary: stdout is a pipe here.

beforeAll(() => assertBuilt());

const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(async () => {
  await killAll();
  for (const d of dirs.splice(0)) d.remove();
});

function logFile(content = healthyLines('S1')): string {
  const d = tempDir();
  dirs.push(d);
  const file = d.file('server.ndjson');
  writeFileSync(file, content);
  return file;
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const withoutSession = (r: ReturnType<typeof resumescope>) => findingsOf(r).filter((f) => f.rule === 'event-id-without-session');

describe('resumescope watch --format ndjson', () => {
  it('prints a violating line appended to a watched file as one NDJSON finding within a second', async () => {
    const file = logFile();
    const w = resumescope(['watch', '--format', 'ndjson', file]);
    // The first violation shows the watcher is running; the second is timed.
    appendFileSync(file, violatingLine(100, 5));
    await waitFor('the first finding', () => withoutSession(w).length === 1, 10_000);
    const appendedAt = Date.now();
    appendFileSync(file, violatingLine(200, 6));
    await waitFor('the second finding', () => withoutSession(w).length === 2, 5000);
    const latency = Date.now() - appendedAt;
    console.info(`watch --format ndjson: appended line to printed finding in ${latency} ms`);
    expect(latency).toBeLessThan(process.env.CI ? 5000 : 1000);
    expect(withoutSession(w)[1]).toMatchObject({ rule: 'event-id-without-session', severity: 'error', session: null, evidence: [{ file, line: 5 }] });
    // Each finding once: nothing printed twice however many rounds ran.
    await sleep(600);
    expect(withoutSession(w)).toHaveLength(2);
  });

  it('exits 1 at the first finding at or above --fail-on', async () => {
    const file = logFile();
    const w = resumescope(['watch', '--format', 'ndjson', '--fail-on', 'error', file]);
    await sleep(300);
    appendFileSync(file, violatingLine(100));
    expect(await exitWithin(w, 5000)).toBe(1);
    expect(withoutSession(w)).toHaveLength(1);
    expect(w.stderr()).toContain('stopped: event-id-without-session (error) in session - is at or above --fail-on error');
  });

  it('--fail-on defaults to never and accepts never: a finding does not stop it', async () => {
    const file = logFile(healthyLines('S1') + violatingLine(100));
    for (const extra of [[], ['--fail-on', 'never']]) {
      const w = resumescope(['watch', '--format', 'ndjson', ...extra, '--exit-after', '1500ms', file]);
      await waitFor('the finding', () => withoutSession(w).length === 1, 5000);
      expect(await exitWithin(w, 5000)).toBe(0);
      expect(w.stderr()).not.toContain('stopped:');
    }
  });

  it('keeps running below the --fail-on severity, and stops at --exit-after with 0', async () => {
    const file = logFile(healthyLines('S1') + violatingLine(100));
    const w = resumescope(['watch', '--format', 'ndjson', '--fail-on', 'critical', '--exit-after', '1500ms', file]);
    await waitFor('the finding', () => withoutSession(w).length === 1, 5000);
    expect(w.exitCode()).toBeUndefined();
    expect(await exitWithin(w, 5000)).toBe(0);
  });

  it('exits cleanly with 0 when the reader of its output goes away', async () => {
    const file = logFile(healthyLines('S1') + violatingLine(100, 5));
    const w = resumescope(['watch', '--format', 'ndjson', file]);
    await waitFor('the first finding', () => withoutSession(w).length === 1, 5000);
    // As `| head -1` does: close the read end of the pipe, then give it something to write.
    w.child.stdout!.destroy();
    appendFileSync(file, violatingLine(200, 6));
    expect(await exitWithin(w, 5000)).toBe(0);
    expect(w.stderr()).not.toMatch(/EPIPE|Error/);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('stops on %s with 0', async (signal) => {
    const file = logFile(healthyLines('S1') + violatingLine(100));
    const w = resumescope(['watch', '--format', 'ndjson', file]);
    await waitFor('the finding', () => withoutSession(w).length === 1, 5000);
    w.child.kill(signal);
    expect(await exitWithin(w, 5000)).toBe(0);
  });

  it('stops after --idle-exit without new lines', async () => {
    const file = logFile();
    const started = Date.now();
    const w = resumescope(['watch', '--format', 'ndjson', '--idle-exit', '800ms', file]);
    await sleep(500);
    appendFileSync(file, violatingLine(100));
    expect(await exitWithin(w, 5000)).toBe(0);
    // The append reset the idle clock.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1300);
    expect(withoutSession(w)).toHaveLength(1);
  });

  it('reads - (stdin) and stops at its end, after judging what it read', async () => {
    const w = resumescope(['watch', '-']);
    w.child.stdin!.write(healthyLines('S1'));
    await sleep(200);
    w.child.stdin!.end(violatingLine(100));
    expect(await exitWithin(w, 5000)).toBe(0);
    expect(withoutSession(w)).toMatchObject([{ evidence: [{ file: '<stdin>', line: 4 }] }]);
  });

  it('follows a folder\'s live files after reading its rotated generations, names the subfolders it does not follow, and follows them too with -r', async () => {
    const d = tempDir();
    dirs.push(d);
    mkdirSync(d.file('node-b'));
    writeFileSync(d.file('mcp.log'), violatingLine(100, 5));
    // Rotated generations no longer grow: read once, first, gzipped or not (their violations, events 7 and 8, show).
    writeFileSync(d.file('mcp.log.1'), violatingLine(50, 7));
    writeFileSync(d.file('mcp.log.2.gz'), gzipSync(violatingLine(20, 8)));
    writeFileSync(d.file('node-b/mcp.log'), violatingLine(200, 6));
    const top = resumescope(['watch', '--format', 'ndjson', '--idle-exit', '1s', d.path]);
    expect(await exitWithin(top, 10_000)).toBe(0);
    expect(withoutSession(top).map((f) => f.evidence[0]!.file).sort()).toEqual([d.file('mcp.log'), d.file('mcp.log.1'), d.file('mcp.log.2.gz')]);
    expect(top.stderr()).toContain(`${d.path}: 1 subfolder with log files not read (node-b): name it too, or pass --recursive`);
    const all = resumescope(['watch', '--format', 'ndjson', '--idle-exit', '1s', '-r', d.path]);
    expect(await exitWithin(all, 10_000)).toBe(0);
    expect(withoutSession(all).map((f) => f.evidence[0]!.file).sort()).toEqual([d.file('mcp.log'), d.file('mcp.log.1'), d.file('mcp.log.2.gz'), d.file('node-b/mcp.log')]);
    expect(all.stderr()).not.toContain('not read');
  });

  it('refuses a folder with no live file to follow, saying where its logs are (a subfolder, or only rotated generations)', async () => {
    const d = tempDir();
    dirs.push(d);
    mkdirSync(d.file('node-b'));
    writeFileSync(d.file('node-b/mcp.log'), violatingLine(200, 6));
    const w = resumescope(['watch', '--format', 'ndjson', d.path]);
    expect(await exitWithin(w, 10_000)).toBe(2);
    expect(w.stderr()).toContain(`${d.path}: folder holds no *.ndjson, *.jsonl, *.log or *.json files to follow of its own; its subfolder node-b does: name it, or pass --recursive`);
    // Rotated generations alone no longer grow: nothing to follow, though analyze reads them.
    writeFileSync(d.file('mcp.log.1'), violatingLine(50, 7));
    const rotatedOnly = resumescope(['watch', '--format', 'ndjson', d.path]);
    expect(await exitWithin(rotatedOnly, 10_000)).toBe(2);
    expect(rotatedOnly.stderr()).toContain('files to follow of its own');
  });

  it("follows a followed folder's files that appear later (with -r, in new subfolders: a new pod), not its rotated generations", async () => {
    const d = tempDir();
    dirs.push(d);
    mkdirSync(d.file('pod-a'));
    writeFileSync(d.file('pod-a/0.log'), violatingLine(100, 5));
    const w = resumescope(['watch', '--format', 'ndjson', '-r', d.path]);
    await waitFor('the first finding', () => withoutSession(w).length === 1, 10_000);
    // A rolling update: a new pod's folder and log; and a rotation's old generation, which no longer grows.
    writeFileSync(d.file('pod-a/0.log.20261109-120010'), violatingLine(150, 7));
    mkdirSync(d.file('pod-b'));
    writeFileSync(d.file('pod-b/0.log'), violatingLine(200, 6));
    await waitFor('the new pod\'s finding', () => withoutSession(w).length === 2, 10_000);
    await sleep(1500);
    expect(withoutSession(w).map((f) => f.evidence[0]!.file)).toEqual([d.file('pod-a/0.log'), d.file('pod-b/0.log')]);
  });

  it('says once on stderr that it writes NDJSON because stdout is no terminal, unless --format asked for it', async () => {
    const file = logFile(healthyLines('S1') + violatingLine(100));
    const note = 'resumescope: stdout is not a terminal: writing findings as NDJSON (--format ndjson)';
    const silent = resumescope(['watch', '--exit-after', '1s', file]);
    expect(await exitWithin(silent, 8000)).toBe(0);
    expect(withoutSession(silent)).toHaveLength(1);
    expect(silent.stderr().split('\n').filter((l) => l === note)).toHaveLength(1);
    const asked = resumescope(['watch', '--format', 'ndjson', '--exit-after', '1s', file]);
    expect(await exitWithin(asked, 8000)).toBe(0);
    expect(asked.stderr()).not.toContain('not a terminal');
  });

  it('follows a folder that does not exist yet, and one that is empty at the start: files that appear in it are found within a second or so', async () => {
    const d = tempDir();
    dirs.push(d);
    mkdirSync(d.file('empty'));
    const w = resumescope(['watch', '--format', 'ndjson', d.file('later'), d.file('empty')]);
    await waitFor('the notices', () => w.stderr().includes('does not exist yet') && w.stderr().includes('no log file to follow yet'), 5000);
    expect(w.exitCode()).toBeUndefined();
    mkdirSync(d.file('later'));
    // Not a log file's name: not followed, as in a folder that existed (near miss).
    writeFileSync(d.file('later/notes.txt'), violatingLine(50, 9));
    let at = Date.now();
    writeFileSync(d.file('later/mcp.log'), violatingLine(100, 5));
    await waitFor('the finding in the folder that appeared', () => withoutSession(w).length === 1, 5000);
    console.info(`watch: a file in a folder that appeared later found in ${Date.now() - at} ms`);
    at = Date.now();
    writeFileSync(d.file('empty/mcp.log'), violatingLine(200, 6));
    await waitFor('the finding in the folder that was empty', () => withoutSession(w).length === 2, 5000);
    console.info(`watch: a file in a folder that was empty found in ${Date.now() - at} ms`);
    expect(withoutSession(w).map((f) => f.evidence[0]!.file)).toEqual([d.file('later/mcp.log'), d.file('empty/mcp.log')]);
  });

  it.each([
    ['--idle-exit', ['--idle-exit', '800ms']],
    ['--exit-after', ['--exit-after', '1s']],
  ])('judges a last line without a newline at the end of the run (%s), as analyze reads it', async (_end, bound) => {
    const file = logFile(healthyLines('S1') + violatingLine(100).trimEnd());
    const w = resumescope(['watch', '--format', 'ndjson', '--fail-on', 'error', ...bound, file]);
    expect(await exitWithin(w, 8000)).toBe(1);
    expect(withoutSession(w)).toMatchObject([{ evidence: [{ file, line: 4 }] }]);
  });

  it('judges a last line without a newline when stopped by a signal, and not before (near miss: the line may still be being written)', async () => {
    const file = logFile(healthyLines('S1') + violatingLine(100).trimEnd());
    const w = resumescope(['watch', '--format', 'ndjson', file]);
    // Started and caught up (its first lines judged), the unterminated one is held: it may be half written.
    await waitFor('the watcher to open the file', () => holdsOpen(w, file), 10_000);
    await sleep(1500);
    expect(withoutSession(w)).toEqual([]);
    w.child.kill('SIGTERM');
    expect(await exitWithin(w, 8000)).toBe(0);
    expect(withoutSession(w)).toHaveLength(1);
  });

  it('quotes the lines of a file rotated away under a name that tells it from the file now at the path', async () => {
    const call = (ms: number) => rec(ms, { kind: 'call', session: 'S1', rpc_id: 7, method: 'tools/call', tool: 'lookup', args_hash: 'h1', status: 200 });
    const file = logFile(healthyLines('S1') + call(500) + violatingLine(600, 5));
    const w = resumescope(['watch', '--format', 'ndjson', '--idle-exit', '3s', file]);
    await waitFor('the first file read', () => withoutSession(w).length === 1, 10_000);
    // logrotate's default: renamed, a new file created; the same call again in it (executed twice)
    renameSync(file, `${file}.1`);
    writeFileSync(file, call(1000));
    expect(await exitWithin(w, 20_000)).toBe(0);
    const twice = findingsOf(w).filter((f) => f.rule === 'duplicate-tool-call');
    expect(twice.map((f) => f.evidence)).toEqual([[{ file: `${file} (rotated away)`, line: 4 }, { file: `${file} (rotated 1)`, line: 1 }]]);
    // Near miss: quoted before the rotation, a line of the file then at the path is named by the path.
    expect(withoutSession(w)[0]!.evidence).toEqual([{ file, line: 5 }]);
  });

  it('waits for a file that does not exist yet, and says so', async () => {
    const d = tempDir();
    dirs.push(d);
    const file = d.file('later.ndjson');
    const w = resumescope(['watch', '--format', 'ndjson', file]);
    await waitFor('the notice', () => w.stderr().includes('does not exist yet'), 5000);
    writeFileSync(file, violatingLine(100));
    await waitFor('the finding', () => withoutSession(w).length === 1, 5000);
  });
});

describe('resumescope watch --format ndjson: sessions lost without a log line, on stderr', () => {
  // A loss is no finding (its 404s are right): stdout stays one finding a line, stderr tells of it, as `analyze` does beside JSON.
  const created = (session: string, at: number) => rec(at, { kind: 'session.created', session, node: 'mcp-b', principal: `tok:${session}` });
  const notFound = (session: string, at: number, node = 'mcp-b') =>
    rec(at, { kind: 'upgrade', session, last_event_id: 1, stream: 'g1', decision: 'reject', status: 404, reason: 'session_not_found', node });
  const lossLines = (w: ReturnType<typeof resumescope>) => w.stderr().split('\n').filter((l) => l.startsWith('resumescope: sessions lost without a log line'));

  it('tells a loss once as it is found, and the count it grew to at the end', async () => {
    const file = logFile(created('S1', 0) + created('S2', 10) + notFound('S1', 5000));
    const w = resumescope(['watch', '--format', 'ndjson', '--idle-exit', '1500ms', file]);
    await waitFor('the loss', () => lossLines(w).length === 1, 5000);
    expect(lossLines(w)[0]).toContain(': mcp-b answered 404 for 1 session it had created and never ended (1 404), at 2026-11-09T10:00:05.000Z');
    appendFileSync(file, notFound('S2', 6000));
    expect(await exitWithin(w, 8000)).toBe(0);
    expect(lossLines(w)).toHaveLength(2);
    expect(lossLines(w)[1]).toContain('(by the end of the run): mcp-b answered 404 for 2 sessions');
    expect(w.stdout().split('\n').filter(Boolean).every((l) => 'rule' in JSON.parse(l))).toBe(true);
  });

  it('tells at the end the count of 404s a loss of the same sessions grew to, and nothing more where it did not grow (near miss)', async () => {
    const file = logFile(created('S1', 0) + notFound('S1', 5000));
    const w = resumescope(['watch', '--format', 'ndjson', '--idle-exit', '1500ms', file]);
    await waitFor('the loss', () => lossLines(w).length === 1, 5000);
    expect(lossLines(w)[0]).toContain('for 1 session it had created and never ended (1 404)');
    appendFileSync(file, notFound('S1', 6000) + notFound('S1', 7000));
    expect(await exitWithin(w, 8000)).toBe(0);
    expect(lossLines(w)).toHaveLength(2);
    expect(lossLines(w)[1]).toContain('(by the end of the run): mcp-b answered 404 for 1 session it had created and never ended (3 404s)');
    const still = resumescope(['watch', '--format', 'ndjson', '--idle-exit', '800ms', logFile(created('S1', 0) + notFound('S1', 5000))]);
    expect(await exitWithin(still, 8000)).toBe(0);
    expect(lossLines(still)).toHaveLength(1);
  });

  it('caught up at --idle-exit, tells a loss other nodes answered once the node that created the sessions fell silent', async () => {
    const file = logFile(created('S1', 0) + notFound('S1', 5000, 'mcp-c'));
    const w = resumescope(['watch', '--format', 'ndjson', '--idle-exit', '800ms', file]);
    expect(await exitWithin(w, 8000)).toBe(0);
    expect(lossLines(w)).toEqual([expect.stringContaining('(by the end of the run): mcp-b logged nothing after 2026-11-09T10:00:00.000Z, and 1 session it had created and never ended got 404 from mcp-c')]);
  });

  it('stopped by --exit-after, not caught up: the silent node may only be late, and its loss is still held back', async () => {
    const file = logFile(created('S1', 0) + notFound('S1', 5000, 'mcp-c'));
    const w = resumescope(['watch', '--format', 'ndjson', '--exit-after', '1500ms', file]);
    expect(await exitWithin(w, 8000)).toBe(0);
    expect(lossLines(w)).toEqual([]);
  });

  it('at the end of stdin, caught up: tells the silent node\'s loss', async () => {
    const w = resumescope(['watch', '-']);
    w.child.stdin!.end(created('S1', 0) + notFound('S1', 5000, 'mcp-c'));
    expect(await exitWithin(w, 8000)).toBe(0);
    expect(lossLines(w)).toEqual([expect.stringContaining('(by the end of the run): mcp-b logged nothing after')]);
  });

  it('tells nothing where the node logged the session\'s end, or went on logging after another node\'s 404', async () => {
    const ended = created('S1', 0) + rec(1000, { kind: 'session.terminated', session: 'S1', node: 'mcp-b' }) + notFound('S1', 5000);
    const routed = created('S2', 0) + notFound('S2', 5000, 'mcp-c') + created('S3', 6000);
    for (const content of [ended, routed]) {
      const w = resumescope(['watch', '--format', 'ndjson', '--idle-exit', '800ms', logFile(content)]);
      expect(await exitWithin(w, 8000)).toBe(0);
      expect(w.stderr()).not.toContain('lost');
    }
  });
});

describe('resumescope watch --db', () => {
  it('keeps what it followed for analyze, and will not follow the same file into it twice', async () => {
    const file = logFile(healthyLines('S1') + violatingLine(100));
    const db = file.replace(/server\.ndjson$/, 'live.db');
    const w = resumescope(['watch', '--format', 'ndjson', '--db', db, '--exit-after', '1s', file]);
    expect(await exitWithin(w, 10_000)).toBe(0);
    const a = resumescope(['analyze', '--db', db, '--format', 'json', '--fail-on', 'never']);
    expect(await exitWithin(a, 10_000)).toBe(0);
    const report = JSON.parse(a.stdout()) as { findings: unknown[]; summary: { records: number } };
    expect(report.summary.records).toBe(4);
    // The same findings; at one instant watch announces the most severe first, analyze sorts by rule.
    const byRule = (fs: unknown[]) => [...(fs as { rule: string }[])].sort((x, y) => x.rule.localeCompare(y.rule));
    expect(byRule(report.findings)).toEqual(byRule(findingsOf(w)));
    const again = resumescope(['watch', '--format', 'ndjson', '--db', db, file]);
    expect(await exitWithin(again, 10_000)).toBe(2);
    expect(again.stderr()).toMatch(/already holds/);
  });

  it('records the content hash of each file it read to the end: ingesting it into the same database later adds nothing', async () => {
    const file = logFile(healthyLines('S1') + violatingLine(100));
    const other = file.replace(/server\.ndjson$/, 'other.ndjson');
    writeFileSync(other, healthyLines('S2'));
    const db = file.replace(/server\.ndjson$/, 'live.db');
    const w = resumescope(['watch', '--format', 'ndjson', '--db', db, '--idle-exit', '800ms', file]);
    expect(await exitWithin(w, 10_000)).toBe(0);
    const ingest = resumescope(['ingest', file, other, '--db', db]);
    expect(await exitWithin(ingest, 10_000)).toBe(0);
    expect(ingest.stderr()).toContain(`${file}: already ingested (same content as ${file}); nothing added`);
    // Another file is other content (near miss): it is added.
    expect(ingest.stderr()).not.toContain(`${other}: already ingested`);
    const a = resumescope(['analyze', '--db', db, '--format', 'json', '--fail-on', 'never']);
    expect(await exitWithin(a, 10_000)).toBe(0);
    expect((JSON.parse(a.stdout()) as { summary: { records: number } }).summary.records).toBe(7);
  });

  it('adding to a judged database leaves the findings kept in it unread: analyze --db judges it again', async () => {
    const file = logFile(healthyLines('S1') + violatingLine(100));
    const db = file.replace(/server\.ndjson$/, 'live.db');
    const analyze = () => resumescope(['analyze', '--db', db, '--format', 'json', '--fail-on', 'never']);
    const first = resumescope(['analyze', file, '--db', db, '--format', 'json', '--fail-on', 'never']);
    expect(await exitWithin(first, 10_000)).toBe(0);
    // The kept findings marked: a report that shows the mark read them.
    const marked = new Database(db);
    marked.exec("UPDATE report_cache_findings SET message = 'KEPT ' || message");
    marked.close();
    const kept = analyze();
    expect(await exitWithin(kept, 10_000)).toBe(0);
    expect(kept.stdout()).toContain('KEPT');
    const other = file.replace(/server\.ndjson$/, 'other.ndjson');
    writeFileSync(other, healthyLines('S2', 1000) + violatingLine(1100, 6));
    const w = resumescope(['watch', '--format', 'ndjson', '--db', db, '--idle-exit', '800ms', other]);
    expect(await exitWithin(w, 10_000)).toBe(0);
    const after = analyze();
    expect(await exitWithin(after, 10_000)).toBe(0);
    expect(after.stdout()).not.toContain('KEPT');
    const count = (r: ReturnType<typeof resumescope>) => (JSON.parse(r.stdout()) as { findings: unknown[] }).findings.length;
    expect(count(after)).toBeGreaterThan(count(first));
  });

  it('refuses to ingest a followed file that grew since into the same database: its first lines are there already', async () => {
    const file = logFile(healthyLines('S1') + violatingLine(100));
    const db = file.replace(/server\.ndjson$/, 'live.db');
    const w = resumescope(['watch', '--format', 'ndjson', '--db', db, '--idle-exit', '800ms', file]);
    expect(await exitWithin(w, 10_000)).toBe(0);
    appendFileSync(file, healthyLines('S2', 1000));
    const ingest = resumescope(['ingest', file, '--db', db]);
    expect(await exitWithin(ingest, 10_000)).toBe(2);
    expect(ingest.stderr()).toContain(`${file}: ${db} already holds its first 4 lines, which \`watch --db\` followed as ${file}`);
    expect(ingest.stderr()).toContain('Ingest it into a new --db file, or analyze the file itself.');
    const a = resumescope(['analyze', '--db', db, '--format', 'json', '--fail-on', 'never']);
    expect(await exitWithin(a, 10_000)).toBe(0);
    expect((JSON.parse(a.stdout()) as { summary: { records: number } }).summary.records).toBe(4);
  });

  it('stopped before the end of a file it was catching up on (here by --fail-on): says so, and the database tells every later command (exit 2)', async () => {
    // A violation first, then three batches of padding (the follower hands over 4 MiB at a time): the run stops
    // at the first round, which comes between batches, long before the file's end.
    const padding = `${JSON.stringify({ note: 'x'.repeat(1000) })}\n`.repeat(13_000);
    const file = logFile(violatingLine(0) + healthyLines('S1', 10) + padding);
    const db = file.replace(/server\.ndjson$/, 'live.db');
    const w = resumescope(['watch', '--format', 'ndjson', '--db', db, '--fail-on', 'error', file]);
    expect(await exitWithin(w, 15_000)).toBe(1);
    expect(w.stderr()).toMatch(
      new RegExp(`${escaped(file)}: the watch following it stopped before reading it to its end: its first \\d+ lines are in the database ${escaped(db)}, which says so to every later command on it \\(exit 2\\)`),
    );
    const a = resumescope(['analyze', '--db', db, '--format', 'json', '--fail-on', 'never']);
    expect(await exitWithin(a, 10_000)).toBe(2);
    expect(a.stderr()).toMatch(new RegExp(`${escaped(file)}: unusable: the watch following it stopped before reading it to its end: its first \\d+ lines are in the database`));
    const ingest = resumescope(['ingest', file, '--db', db]);
    expect(await exitWithin(ingest, 10_000)).toBe(2);
    expect(ingest.stderr()).toContain(`${file}: ${db} already holds its first`);
  });
});

describe('resumescope tui', () => {
  it('refuses to run without a terminal and points to analyze', async () => {
    const file = logFile();
    const t = resumescope(['tui', file]);
    expect(await exitWithin(t, 10_000)).toBe(2);
    expect(t.stderr()).toMatch(/needs a terminal/);
    expect(t.stderr()).toMatch(/resumescope analyze/);
  });

  it('writes a hostile session id as JSON that reads back exact, with no control or bidi override as itself', async () => {
    const d = tempDir();
    dirs.push(d);
    const [file] = writeHostileLogs(d.path);
    const w = resumescope(['watch', '--format', 'ndjson', '--exit-after', '1500ms', file!]);
    await waitFor('a finding', () => findingsOf(w).length > 0, 5000);
    expect(await exitWithin(w, 5000)).toBe(0);
    expect(findingsOf(w).some((f) => f.session?.includes('\u202e'))).toBe(true);
    expect(RAW_HOSTILE.test(w.stdout())).toBe(false);
  });
});

