import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findingFingerprint, findingIdentity } from '../../src/findings/identity.js';
import type { Finding } from '../../src/model/finding.js';
import { FINDINGS } from '../render/fixture.js';
import { analyzeFilesOf, analyzeLines, at, findingsOf, type LogLine } from '../helpers/logs.js';
import type { Report } from '../../src/model/finding.js';

const f = FINDINGS[0]!;
const shifted = (x: Finding, by: number): Finding => ({ ...x, evidence: x.evidence.map((e) => ({ file: e.file.replace('.ndjson', '-2.ndjson'), line: e.line + by })) });

describe('finding identity (baseline, SARIF fingerprint, live, what-if)', () => {
  it('is 16 hex digits as a fingerprint, and the same on a re-run of the same logs', () => {
    expect(findingFingerprint(f)).toMatch(/^[0-9a-f]{16}$/);
    expect(findingFingerprint(structuredClone(f))).toBe(findingFingerprint(f));
  });

  it('does not change when the evidence lines shift in a re-export', () => {
    expect(findingIdentity(shifted(f, 40))).toBe(findingIdentity(f));
  });

  it('does not change when the message is reworded as the log grows', () => {
    const reworded: Finding = { ...f, message: `${f.message}; it was retired only at 2026-11-09T10:09:00.000Z` };
    expect(findingIdentity(reworded)).toBe(findingIdentity(f));
  });

  it('tells apart findings that differ in rule, session or time', () => {
    const variants: Finding[] = [{ ...f, rule: 'phantom-event-id' }, { ...f, session: 'S9' }, { ...f, session: null }, { ...f, at: '2026-11-09T10:00:04.001Z' }];
    expect(new Set([f, ...variants].map(findingIdentity)).size).toBe(variants.length + 1);
  });

  it('identifies an orphaned request by the request and what stranded it, not by its fate, which later lines change', () => {
    const head = 'server request r1 (sampling/createMessage) on g1 was stranded: g1 was closed at 2026-11-09T10:00:00.200Z while it was pending';
    const orphan: Finding = { ...f, rule: 'orphaned-request', at: '2026-11-09T10:00:00.200Z', message: `${head}; it is still unanswered when the log ends` };
    const fates = [
      { at: '2026-11-09T10:01:00.000Z', message: `${head}; it timed out at 2026-11-09T10:01:00.000Z unanswered` },
      { message: `${head}; it is still unanswered when the log ends (1 answer got an error status and was not taken)` },
      { at: '2026-11-09T10:01:00.000Z', message: `${head}; it timed out at 2026-11-09T10:01:00.000Z unanswered (2 answers got an error status and were not taken)` },
      // a resumption of its lineage replayed it, or resumed from its own event, before its fate
      { message: `${head}; it was replayed on the resumed lineage at 2026-11-09T10:00:01.000Z but is still unanswered when the log ends` },
      {
        at: '2026-11-09T10:01:00.000Z',
        message: `${head}; it was replayed on the resumed lineage at 2026-11-09T10:00:01.000Z but never answered, re-issued or cancelled before it timed out at 2026-11-09T10:01:00.000Z (1 answer got an error status and was not taken)`,
      },
      {
        at: '2026-11-09T10:01:00.000Z',
        message: `${head}; the client had received it (its event was the Last-Event-ID of a resumption at 2026-11-09T10:00:01.000Z) but it was never answered, re-issued or cancelled before it timed out at 2026-11-09T10:01:00.000Z`,
      },
      { message: `${head}; the client had received it (its event was the Last-Event-ID of a resumption at 2026-11-09T10:00:01.000Z) but it is still unanswered when the log ends` },
    ];
    for (const fate of fates) expect(findingIdentity({ ...orphan, ...fate })).toBe(findingIdentity(orphan));
    const others = [head.replace('r1', 'r2'), head.replace('on g1', 'on g2'), head.replace('00.200Z', '00.300Z')];
    for (const other of others) expect(findingIdentity({ ...orphan, message: `${other}; it is still unanswered when the log ends` })).not.toBe(findingIdentity(orphan));
  });

  it('near miss: a request id that reads like a fate is part of what names the request', () => {
    const orphan = (id: string): Finding => ({ ...f, rule: 'orphaned-request', message: `server request ${id} on g1 was stranded: g1 was closed at 2026-11-09T10:00:00.200Z while it was pending; it is still unanswered when the log ends` });
    expect(findingIdentity(orphan('r1; it is still unanswered when the log ends'))).not.toBe(findingIdentity(orphan('r1')));
    const replayed = '; it was replayed on the resumed lineage at 2026-11-09T10:00:01.000Z but is still unanswered when the log ends';
    expect(findingIdentity(orphan(`r1${replayed}`))).not.toBe(findingIdentity(orphan('r1')));
  });

  it('identifies the other rules settled at the end of the log by their time, the record they cite first', () => {
    for (const rule of ['stranded-response', 'session-in-stateless-era']) {
      const g: Finding = { ...f, rule };
      expect(findingIdentity(shifted(g, 40))).toBe(findingIdentity(g));
      expect(findingIdentity({ ...g, at: '2026-11-09T10:00:04.001Z' })).not.toBe(findingIdentity(g));
    }
  });
});

/** A log as the CLI reads it again: one ignored line added at its top, or split into two files at its middle. */
describe('finding identity of the rules settled at the end of the log, on logs cut differently', () => {
  const strandedResponse: LogLine[] = [
    { ts: at(0), kind: 'session.created', session: 'S', principal: 'alice', protocol_version: '2025-11-25' },
    { ts: at(11), kind: 'stream.opened', session: 'S', stream: 'p1', via: 'post' },
    { ts: at(13), kind: 'stream.closed', session: 'S', stream: 'p1', reason: 'error' },
    { ts: at(500), kind: 'event.sent', session: 'S', stream: 'p1', event_id: 'e1', rpc_kind: 'response', rpc_id: 1, attached: false },
  ];
  const stateless: LogLine[] = [
    { ts: at(0), kind: 'call', rpc_id: 1, method: 'tools/call', status: 200, protocol_version: '2026-07-28' },
    { ts: at(1), kind: 'session.created', session: 'S1', protocol_version: '2026-07-28' },
    { ts: at(2), kind: 'http', method: 'POST', path: '/mcp', status: 200, req_headers: { 'mcp-protocol-version': '2026-07-28' }, resp_headers: { 'mcp-session-id': 'S2', 'content-type': 'application/json' } },
  ];
  const logs: [string, LogLine[]][] = [
    ['orphaned-request', readFileSync('samples/stream-vs-session.ndjson', 'utf8').trimEnd().split('\n')],
    ['stranded-response', strandedResponse],
    ['session-in-stateless-era', stateless],
  ];
  const keys = (report: Report, rule: string) => findingsOf(report, rule).map(findingFingerprint).sort();

  it.each(logs)('%s keeps its keys with a line added at the top and with the log split into two files', async (rule, lines) => {
    const asIs = keys(await analyzeLines(lines), rule);
    expect(asIs.length).toBeGreaterThan(0);
    expect(keys(await analyzeLines(['app started', ...lines]), rule)).toEqual(asIs);
    const half = Math.ceil(lines.length / 2);
    expect(keys(await analyzeFilesOf({ 'b.ndjson': lines.slice(half), 'a.ndjson': lines.slice(0, half) }), rule)).toEqual(asIs);
  });

  it('an orphaned request keeps its key when a later line times it out', async () => {
    const pending: LogLine[] = [
      { ts: at(0), kind: 'session.created', session: 'S1', principal: 'alice' },
      { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' },
      { ts: at(100), kind: 'request.sent', session: 'S1', stream: 'g1', request_id: 'r1', method: 'sampling/createMessage' },
      { ts: at(200), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'error' },
    ];
    const before = findingsOf(await analyzeLines(pending), 'orphaned-request');
    const after = findingsOf(await analyzeLines([...pending, { ts: at(60_000), kind: 'request.timed_out', session: 'S1', request_id: 'r1' }]), 'orphaned-request');
    expect(after.map((g) => g.at)).not.toEqual(before.map((g) => g.at));
    expect(after.map(findingFingerprint)).toEqual(before.map(findingFingerprint));
  });
});
