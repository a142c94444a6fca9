import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { at, writeLog } from '../helpers/logs.js';
import { cli } from './run-cli.js';

// The report summary's questions are queries/reports/ files: `query <name>` answers what the report says.
describe('the summary questions, run by name', () => {
  it('protocol-versions counts the sessions of each version as the summary does', async () => {
    const report = JSON.parse((await cli('analyze', 'samples/proxy', '-f', 'json', '--fail-on', 'never')).out);
    const rows = JSON.parse((await cli('query', 'protocol-versions', 'samples/proxy', '--format', 'json')).out) as { v: string; n: number }[];
    expect(Object.fromEntries(rows.map((r) => [r.v, r.n]))).toEqual(report.summary.protocol_versions);
  });

  it("the skew questions give each node's skew as the summary reports it", async () => {
    // b logs a replay 7 ms before a logged the send; c takes a resumption 300 ms before a logged the event it names
    const dir = mkdtempSync(join(tmpdir(), 'rs-skew-'));
    const log = writeLog(join(dir, 'skew.ndjson'), [
      { ts: at(0), kind: 'session.created', session: 'S1', node: 'a' },
      { ts: at(0), kind: 'stream.opened', session: 'S1', stream: 'g1', node: 'a', via: 'get' },
      { ts: at(9), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 'e1', node: 'a' },
      { ts: at(2), kind: 'event.replayed', session: 'S1', stream: 'g1', event_id: 'e1', node: 'b' },
      { ts: at(1300), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 'e2', node: 'a' },
      { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: 'e2', stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0, node: 'c' },
    ]);
    const report = JSON.parse((await cli('analyze', log, '-f', 'json', '--fail-on', 'never')).out);
    const behind = Object.entries(report.summary.nodes as Record<string, { skew_ms?: number }>).filter(([, n]) => n.skew_ms !== undefined);
    expect(behind.map(([node, n]) => [node, n.skew_ms])).toEqual([['b', -7], ['c', -300]]);
    const fromSends = JSON.parse((await cli('query', 'skew-from-sends', log, '--format', 'json')).out);
    const fromResumptions = JSON.parse((await cli('query', 'skew-from-resumptions', log, '--format', 'json')).out);
    expect(fromSends).toEqual([{ node: 'b', skew: 7 }]);
    expect(fromResumptions).toEqual([{ node: 'c', skew: 300 }]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a dashboard question that takes a session is not offered by --list', async () => {
    const list = (await cli('query', '--list')).out;
    expect(list).toMatch(/^protocol-versions +How many sessions/m);
    expect(list).not.toMatch(/^session-last-upgrade /m);
  });
});
