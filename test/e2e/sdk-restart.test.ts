import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeFiles, describeFindings, findingsOf, type Report } from './support/analysis.js';
import { serverRestart } from './support/scenarios.js';
import { Stoppables } from './support/stoppables.js';
import { makeTempDir } from './support/temp-dir.js';

// (b) The server restarts with a new transport map: the old session id is
// unknown to it, and it must answer 404, not hand out a session.

const stop = new Stoppables();
const dir = makeTempDir();
let run: Awaited<ReturnType<typeof serverRestart>>;
let report: Report;

beforeAll(async () => {
  run = await serverRestart(dir.path, stop);
  report = await analyzeFiles([run.logFile]);
});

afterAll(async () => {
  await stop.stopAll();
  dir.remove();
});

describe('SDK server restart', () => {
  it('logs the session as created by the first process only', () => {
    const created = run.records.filter((r) => r.kind === 'session.created');
    expect(created).toEqual([expect.objectContaining({ session: run.session, node: 'mcp-1' })]);
  });

  it("logs the client's reconnect to the new process as a reject 404, and its call as a 404", () => {
    const afterRestart = run.records.filter((r) => r.node === 'mcp-1-restarted');
    const reconnects = afterRestart.filter((r) => r.kind === 'upgrade');
    expect(reconnects.length).toBeGreaterThan(0);
    for (const r of reconnects) {
      expect(r).toMatchObject({ session: run.session, decision: 'reject', status: 404, reason: 'Session not found' });
    }
    expect(afterRestart.filter((r) => r.kind === 'call')).toEqual([
      expect.objectContaining({ session: run.session, method: 'tools/call', tool: 'echo', status: 404 }),
    ]);
    expect(String(run.postError)).toContain('Session not found');
  });

  it('shows no session, stream or event for the old id after the restart', () => {
    const afterRestart = run.records.filter((r) => r.node === 'mcp-1-restarted');
    expect(afterRestart.map((r) => r.kind).filter((k) => k !== 'upgrade' && k !== 'call')).toEqual([]);
  });

  it('gives the analyzer no silent-fork', () => {
    expect(findingsOf(report, 'silent-fork'), describeFindings(report)).toEqual([]);
    expect(report.summary.rejected_lines).toBe(0);
  });
});
