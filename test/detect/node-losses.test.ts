import { describe, expect, it } from 'vitest';
import { analyzeLines, at, type LogLine } from '../helpers/logs.js';
import { groupLosses, LOSS_GAP_MS } from '../../src/detect/node-losses.js';

// summary.lost_sessions: a node that restarts or evicts without a log line shows it only as 404s for
// sessions it created and never ended. An on-call engineer reads them as one event per node, with the
// node's last record of them and the first 404 bounding it, instead of dozens of separate findings.

/** A session created on `node` at `t`, which that node last logged at `t + 1000`. */
function session(id: string, node: string, t: number): LogLine[] {
  return [
    { ts: at(t), kind: 'session.created', session: id, node, principal: `tok:${id}` },
    { ts: at(t + 1000), kind: 'event.sent', session: id, stream: 'g1', event_id: 1, rpc_kind: 'notification', method: 'notifications/progress', node },
  ];
}

function notFound(id: string, node: string, t: number): LogLine {
  return { ts: at(t), kind: 'upgrade', session: id, last_event_id: 1, stream: 'g1', decision: 'reject', status: 404, reason: 'session_not_found', node };
}

describe('sessions a node lost without a log line', () => {
  it('404s from the creating node for sessions never ended make one loss, bounded by the last record of any of them', async () => {
    const report = await analyzeLines([
      ...session('S1', 'b', 0),
      ...session('S2', 'b', 2000), // last logged at 3000: the latest before the first 404
      notFound('S1', 'b', 9000),
      { ts: at(9500), kind: 'call', session: 'S2', rpc_id: 7, method: 'tools/call', status: 404, node: 'b' },
      notFound('S1', 'b', 9600),
    ]);
    const [loss, ...rest] = report.summary.lost_sessions ?? [];
    expect(rest).toEqual([]);
    expect(loss).toMatchObject({ node: 'b', sessions: 2, not_found: 3, from_ms: Date.parse(at(9000)), until_ms: Date.parse(at(9500)), last_seen_ms: Date.parse(at(3000)) });
    expect(loss!.evidence.map((e) => e.line)).toEqual([4, 5]);
    expect(loss!.lost).toEqual([
      { session: 'S1', after_ms: Date.parse(at(1000)) },
      { session: 'S2', after_ms: Date.parse(at(3000)) },
    ]);
  });

  it('not a loss: an end the node logged, a 404 from another node, a 404 before any creation, or a session re-created since', async () => {
    const report = await analyzeLines([
      ...session('E1', 'b', 0),
      { ts: at(2000), kind: 'session.evicted', session: 'E1', reason: 'idle_timeout', node: 'b' },
      notFound('E1', 'b', 3000), // ended first: the 404 is the right answer
      ...session('X1', 'a', 0),
      notFound('X1', 'b', 3000), // b never created X1: without a shared store, it cannot know it
      notFound('U1', 'b', 3000), // no creation in the log at all
      ...session('R1', 'b', 0),
      { ts: at(4000), kind: 'session.terminated', session: 'R1', reason: 'client_delete', node: 'b' },
      ...session('R1', 'a', 5000), // created again, on a
      notFound('R1', 'b', 7000), // b did not create the incarnation it is asked for
      { ts: at(8000), kind: 'session.created', session: 'Z1', node: 'a', principal: 'tok:z' }, // and a, which did, logs on
    ]);
    expect(report.summary.lost_sessions).toBeUndefined();
  });

  it('a 404 from another node after the creating node fell silent is a loss of the creating node (a crash, or a restart as host/pid)', async () => {
    const report = await analyzeLines([
      ...session('S1', 'a/101', 0),
      ...session('S2', 'a/101', 500), // a/101's sessions last logged at 1500
      { ts: at(2000), kind: 'session.created', session: 'Z1', node: 'a/101', principal: 'tok:z' }, // its last line of all
      notFound('S1', 'a/202', 5000), // the restarted process, under its new pid
      { ts: at(5200), kind: 'call', session: 'S2', rpc_id: 3, method: 'tools/call', status: 404, node: 'a/202' },
      notFound('S1', 'a/202', 5400),
    ]);
    const [loss, ...rest] = report.summary.lost_sessions ?? [];
    expect(rest).toEqual([]);
    expect(loss).toMatchObject({
      node: 'a/101', answered_by: ['a/202'], sessions: 2, not_found: 3,
      from_ms: Date.parse(at(5000)), until_ms: Date.parse(at(5200)), last_seen_ms: Date.parse(at(1500)), silent_after_ms: Date.parse(at(2000)),
    });
    // the sessions' last record, the node's last line of all, the first 404
    expect(loss!.evidence.map((e) => e.line)).toEqual([4, 5, 6]);
  });

  it('one loss for a node that fell silent, however long its idle clients take to come back', async () => {
    const report = await analyzeLines([...session('S1', 'a', 0), ...session('S2', 'a', 0), notFound('S1', 'b', 5000), notFound('S2', 'b', 5000 + 5 * LOSS_GAP_MS)]);
    expect(report.summary.lost_sessions).toMatchObject([{ node: 'a', sessions: 2, from_ms: Date.parse(at(5000)), until_ms: Date.parse(at(5000 + 5 * LOSS_GAP_MS)) }]);
  });

  it('not a loss: another node\'s 404 while the creating node still logs, however little or late', async () => {
    const lines: LogLine[] = [...session('S1', 'a', 0), notFound('S1', 'b', 5000)];
    expect((await analyzeLines(lines)).summary.lost_sessions).toHaveLength(1);
    // a record of another session, in the 404's own millisecond or an hour on: a is alive, and the 404 says where the request went
    for (const t of [5000, 3_600_000]) {
      const alive = await analyzeLines([...lines, { ts: at(t), kind: 'session.created', session: 'Z1', node: 'a', principal: 'tok:z' }]);
      expect(alive.summary.lost_sessions).toBeUndefined();
    }
  });

  it('with --shared-session-store, a 404 from any node for a live session is a loss of that node', async () => {
    // a logs on after the 404: without a shared store, b's 404 only says where the request went
    const lines = [...session('X1', 'a', 0), notFound('X1', 'b', 3000), { ts: at(4000), kind: 'session.created', session: 'Z1', node: 'a', principal: 'tok:z' }];
    expect((await analyzeLines(lines)).summary.lost_sessions).toBeUndefined();
    const shared = await analyzeLines(lines, { sharedSessionStore: true });
    expect(shared.summary.lost_sessions).toMatchObject([{ node: 'b', sessions: 1, not_found: 1, last_seen_ms: Date.parse(at(1000)) }]);
  });

  it('with --shared-session-store, says which node created the sessions and which logged them last, where not the one charged', async () => {
    const lines = [...session('X1', 'a', 0), notFound('X1', 'b', 3000), { ts: at(4000), kind: 'session.created', session: 'Z1', node: 'a', principal: 'tok:z' }];
    const [loss] = (await analyzeLines(lines, { sharedSessionStore: true })).summary.lost_sessions!;
    expect(loss).toMatchObject({ node: 'b', created_on: ['a'], last_seen_node: 'a' });
    // near miss: b created and last logged them itself: nothing more to name
    const own = [...session('X1', 'b', 0), notFound('X1', 'b', 3000)];
    const [mine] = (await analyzeLines(own, { sharedSessionStore: true })).summary.lost_sessions!;
    expect(mine).toMatchObject({ node: 'b' });
    expect(mine).not.toHaveProperty('created_on');
    expect(mine).not.toHaveProperty('last_seen_node');
  });

  it('stays out of the JSON report, whose shape rules.md fixes', async () => {
    const { renderJson } = await import('../../src/render/json.js');
    const report = await analyzeLines([...session('S1', 'b', 0), notFound('S1', 'b', 9000)]);
    expect(report.summary.lost_sessions).toHaveLength(1);
    expect(Object.keys(JSON.parse(renderJson(report)).summary)).toEqual(['records', 'rejected_lines', 'ignored_lines', 'sessions', 'by_rule', 'nodes', 'protocol_versions']);
  });
});

describe('groupLosses', () => {
  const row = (node: string | null, ms: number) => ({ node, first_404_ms: ms });

  it('cuts a node\'s losses where a first 404 comes LOSS_GAP_MS or more after the one before, and orders the groups by time', () => {
    const groups = groupLosses([row('a', 0), row('b', 10), row('a', LOSS_GAP_MS - 1), row('a', 2 * LOSS_GAP_MS - 1), row(null, 5)]);
    expect(groups).toEqual([[row('a', 0), row('a', LOSS_GAP_MS - 1)], [row(null, 5)], [row('b', 10)], [row('a', 2 * LOSS_GAP_MS - 1)]]);
  });

  it('never cuts apart the 404s other nodes answered after the node fell silent, however far apart', () => {
    const silent = (ms: number) => ({ node: 'a', first_404_ms: ms, node_last_ms: 0 });
    const own = (ms: number) => ({ node: 'a', first_404_ms: ms, node_last_ms: null });
    expect(groupLosses([silent(1000), silent(10 * LOSS_GAP_MS), silent(20 * LOSS_GAP_MS)])).toEqual([[silent(1000), silent(10 * LOSS_GAP_MS), silent(20 * LOSS_GAP_MS)]]);
    // the node's own 404s are cut by the gap, as before, from each other and from the silent ones
    expect(groupLosses([own(0), own(2 * LOSS_GAP_MS), silent(4 * LOSS_GAP_MS)])).toEqual([[own(0)], [own(2 * LOSS_GAP_MS)], [silent(4 * LOSS_GAP_MS)]]);
  });

  it('no rows, no groups', () => {
    expect(groupLosses([])).toEqual([]);
  });
});
