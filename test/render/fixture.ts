import type { Finding, Report } from '../../src/model/finding.js';
import type { LineRef } from '../../src/model/record.js';
import type { LineText } from '../../src/render/common.js';
import type { LineRecords, SummaryRecord } from '../../src/render/evidence-summary.js';

// Two server instances behind one load balancer: the resumption in S1 landed on node b,
// which replayed alice's session to bob from a trimmed buffer.
export const LOG_LINES: Record<string, string[]> = {
  'server-a.ndjson': [
    '{"ts":"2026-11-09T10:00:00.000Z","kind":"session.created","session":"S1","incarnation":"i-1","principal":"alice","node":"a"}',
    '{"ts":"2026-11-09T10:00:00.010Z","kind":"stream.opened","session":"S1","stream":"g1","via":"get","conn":"c1","node":"a"}',
    '{"ts":"2026-11-09T10:00:01.000Z","kind":"event.sent","session":"S1","stream":"g1","event_id":1182,"rpc_kind":"notification","node":"a"}',
    '{"ts":"2026-11-09T10:00:02.000Z","kind":"event.sent","session":"S1","stream":"g1","event_id":1183,"rpc_kind":"request","method":"sampling/createMessage","node":"a"}',
    '{"ts":"2026-11-09T10:00:03.000Z","kind":"buffer.trimmed","session":"S1","stream":"g1","oldest_retained":1190,"node":"a"}',
    '{"ts":"2026-11-09T10:00:05.000Z","kind":"session.created","session":"S2","principal":"carol","node":"a"}',
    '{"ts":"2026-11-09T10:00:05.100Z","kind":"stream.opened","session":"S2","stream":"g7","via":"get","conn":"c7","node":"a"}',
  ],
  'server-b.ndjson': [
    '{"level":30,"msg":"listening","port":8080}',
    '{"ts":"2026-11-09T10:00:04.000Z","kind":"upgrade","session":"S1","last_event_id":"1182","stream":"g1","new_stream":"g2","decision":"resume","status":200,"replayed":4,"first_replayed":1190,"principal":"bob","node":"b"}',
    '{"ts":"2026-11-09T10:00:06.000Z","kind":"upgrade","session":null,"last_event_id":"77","new_stream":"g9","decision":"resume","status":200,"replayed":3,"node":"b"}',
    '{"ts":"2026-11-09T10:00:09.000Z","kind":"upgrade","session":"S2","last_event_id":null,"new_stream":"g8","decision":"attach","status":200,"replayed":0,"reemitted":0,"node":"b"}',
    ...[0, 1, 2, 3, 4].map(
      (i) => `{"ts":"2026-11-09T10:01:0${i}.000Z","kind":"request.answered","session":"S3","request_id":"r-${i}","status":404,"note":"${'x'.repeat(400)}","node":"b"}`,
    ),
  ],
};

export const lineText: LineText = (ref: LineRef) => LOG_LINES[ref.file]?.[ref.line - 1];

/** The record each fixture line is, as the store holds it (snake_case columns, ts_ms); none for the non-record line. */
export const lineRecords: LineRecords = (ref: LineRef) => {
  const text = lineText(ref);
  if (text === undefined) return undefined;
  const { ts, ...fields } = JSON.parse(text) as Record<string, unknown>;
  if (typeof fields.kind !== 'string') return undefined;
  const record = { ...fields, ts_ms: Date.parse(String(ts)) } as Record<string, unknown>;
  for (const k of ['event_id', 'first_replayed', 'oldest_retained']) if (typeof record[k] === 'number') record[k] = String(record[k]);
  return { records: [record as unknown as SummaryRecord] };
};

const a = (line: number): LineRef => ({ file: 'server-a.ndjson', line });
const b = (line: number): LineRef => ({ file: 'server-b.ndjson', line });

export const FINDINGS: Finding[] = [
  {
    rule: 'silent-truncation',
    severity: 'error',
    session: 'S1',
    at: '2026-11-09T10:00:04.000Z',
    message: 'resume after 1182 was accepted although 1182 had been trimmed (oldest retained 1190 > 1182 & no reset): events 1183–1189 were never replayed',
    evidence: [a(5), b(2)],
  },
  {
    rule: 'cross-principal-replay',
    severity: 'critical',
    session: 'S1',
    at: '2026-11-09T10:00:04.000Z',
    message: 'events of S1 (owner "alice") were replayed to principal "bob"',
    evidence: [a(1), b(2)],
  },
  {
    rule: 'engine-divergence',
    severity: 'info',
    session: 'S1',
    at: '2026-11-09T10:00:04.000Z',
    message: 'server decided resume, the engine decides reject (409 resumption_unavailable): explained by silent-truncation, cross-principal-replay',
    evidence: [b(2)],
  },
  {
    rule: 'event-id-without-session',
    severity: 'error',
    session: null,
    at: '2026-11-09T10:00:06.000Z',
    message: 'Last-Event-ID 77 without Mcp-Session-Id was accepted (200, 3 events replayed)',
    evidence: [b(3)],
  },
  {
    rule: 'dual-writer',
    severity: 'error',
    session: 'S2',
    at: '2026-11-09T10:00:09.000Z',
    message: 'attach opened g8 while standalone stream g7 was neither closed nor fenced',
    evidence: [a(7), b(4)],
  },
  {
    rule: '404-storm',
    severity: 'warning',
    session: 'S3',
    at: '2026-11-09T10:01:04.000Z',
    message: '5 POSTs for S3 got 404 within 4.0 s',
    evidence: [b(5), b(6), b(7), b(8), b(9)],
  },
];

export function makeReport(findings: Finding[] = FINDINGS): Report {
  return {
    version: 1,
    findings,
    not_knowable: [
      { rule: 'orphaned-request', session: 'S5', reason: 'proxy log: pending server requests are not visible' },
      { rule: 'orphaned-request', session: 'S4', reason: 'proxy log: pending server requests are not visible' },
      { rule: 'pending-not-reemitted', session: 'S4', reason: 'upgrade has no reemitted counter' },
    ],
    summary: {
      records: 16,
      rejected_lines: 2,
      ignored_lines: 1,
      sessions: 5,
      by_rule: { 'silent-truncation': 1, 'cross-principal-replay': 1, 'engine-divergence': 1, 'event-id-without-session': 1, 'dual-writer': 1, '404-storm': 1 },
      nodes: { b: { records: 8, skew_ms: -12 }, a: { records: 7 } },
      protocol_versions: { unknown: 5 },
    },
  };
}
