// Realistic view models: a few sessions with resume / attach / reject
// decisions and the findings seeds 000–004 describe.
import type { DashboardModel, FeedItem, SessionDetail, SessionRow, Series } from '../../src/tui/view-model.js';

const at = (clock: string) => `2026-11-09T${clock}Z`;

export const FEED_OLDEST_TO_NEWEST_RULES = [
  'event-id-without-session',
  'silent-truncation',
  '404-storm',
  'dual-writer',
  'cross-principal-replay',
];

// Deliberately not in display order: the dashboard must show newest first whatever it is given.
export const FEED: FeedItem[] = [
  {
    key: 'f-trunc',
    rule: 'silent-truncation',
    severity: 'error',
    session: 'S-7f3a1c',
    at: at('10:00:04.200'),
    message: 'resume from 1204 replayed 4 events, 9 were sent after it',
    evidence: [
      { file: 'server-a.ndjson', line: 41, text: '{"kind":"event.sent","event_id":1204}' },
      { file: 'server-a.ndjson', line: 57, text: '{"kind":"upgrade","last_event_id":1204,"replayed":4}' },
    ],
  },
  {
    key: 'f-cross',
    rule: 'cross-principal-replay',
    severity: 'critical',
    session: 'S-b21e90',
    at: at('10:00:07.000'),
    message: "bob was replayed alice's events",
    evidence: [{ file: 'server-b.ndjson', line: 88 }],
  },
  {
    key: 'f-dual',
    rule: 'dual-writer',
    severity: 'error',
    session: 'S-b21e90',
    at: at('10:00:06.500'),
    message: 'attach superseded g1 while it was neither closed nor fenced',
    evidence: [
      { file: 'server-b.ndjson', line: 12, text: '{"kind":"stream.opened","stream":"g1","via":"get"}' },
      { file: 'server-b.ndjson', line: 80, text: '{"kind":"upgrade","new_stream":"g2","decision":"attach"}' },
    ],
  },
  {
    key: 'f-nosess',
    rule: 'event-id-without-session',
    severity: 'error',
    session: null,
    at: at('10:00:01.000'),
    message: 'Last-Event-ID 5 accepted without Mcp-Session-Id',
    evidence: [{ file: 'proxy.ndjson', line: 3 }],
  },
  {
    key: 'f-storm',
    rule: '404-storm',
    severity: 'warning',
    session: 'S-c4d5e6',
    at: at('10:00:05.000'),
    message: '7 POSTs got 404 within 4 s',
    evidence: [{ file: 'proxy.ndjson', line: 20 }],
  },
];

export const SESSIONS: SessionRow[] = [
  {
    session: 'S-7f3a1c',
    state: 'live',
    streams: 2,
    lastTriple: { lastEventId: '1204', decision: 'resume', status: 200 },
    replayed: 4,
    reemitted: 0,
    findings: 1,
    lastSeen: at('10:00:09.000'),
  },
  {
    session: 'S-b21e90',
    state: 'ended',
    streams: 3,
    lastTriple: { lastEventId: null, decision: 'attach', status: 200 },
    replayed: 0,
    reemitted: 2,
    findings: 2,
    lastSeen: at('10:00:07.500'),
  },
  {
    session: 'S-c4d5e6',
    state: 'forked',
    streams: 1,
    lastTriple: { lastEventId: '88', decision: 'reject', status: 409 },
    replayed: 0,
    reemitted: 0,
    findings: 1,
    lastSeen: at('10:00:05.000'),
  },
  {
    session: 'S-0a9f12',
    state: 'unknown',
    streams: 0,
    lastTriple: null,
    replayed: 0,
    reemitted: 0,
    findings: 0,
    lastSeen: at('10:00:02.000'),
  },
];

export const SERIES: Series = {
  labels: Array.from({ length: 12 }, (_, i) => at(`10:00:${String(i * 5).padStart(2, '0')}.000`)),
  decisions: {
    resume: [0, 2, 3, 1, 4, 6, 2, 0, 1, 3, 5, 2],
    attach: [1, 0, 0, 2, 1, 0, 0, 3, 1, 0, 0, 1],
    fresh: [0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0],
    reject: [0, 0, 0, 0, 2, 5, 1, 0, 0, 0, 0, 0],
  },
  replayed: [0, 8, 12, 4, 16, 30, 9, 0, 4, 12, 20, 8],
  reemitted: [0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 1],
  http404: [0, 0, 0, 0, 3, 7, 1, 0, 0, 0, 0, 0],
};

export const EMPTY_SERIES: Series = {
  labels: [],
  decisions: { resume: [], attach: [], fresh: [], reject: [] },
  replayed: [],
  reemitted: [],
  http404: [],
};

export function fixtureModel(overrides: Partial<DashboardModel> = {}): DashboardModel {
  return {
    sources: ['server-a.ndjson', 'server-b.ndjson', 'proxy.ndjson'],
    mode: 'recorded',
    records: 12_345,
    ratePerSec: 0,
    rejected: 3,
    ignored: 17,
    bySeverity: { critical: 1, error: 3, warning: 1, info: 0 },
    feed: FEED,
    sessions: SESSIONS,
    series: SERIES,
    ...overrides,
  };
}

export const DETAIL_B21E90: SessionDetail = {
  session: 'S-b21e90',
  incarnations: ['i-41'],
  lanes: [
    { stream: 'g1', via: 'get', state: 'superseded' },
    { stream: 'g2', via: 'get', state: 'closed' },
    { stream: 'p7', via: 'post', state: 'closed' },
  ],
  rows: [
    { at: at('10:00:00.000'), lane: null, kind: 'session.created', text: 'principal alice', ref: { file: 'server-b.ndjson', line: 10 } },
    { at: at('10:00:00.010'), lane: 'g1', kind: 'stream.opened', text: 'via get', ref: { file: 'server-b.ndjson', line: 12 } },
    { at: at('10:00:01.000'), lane: 'g1', kind: 'event.sent', text: 'id 31 sampling', ref: { file: 'server-b.ndjson', line: 30 } },
    { at: at('10:00:02.000'), lane: 'p7', kind: 'stream.opened', text: 'via post', ref: { file: 'server-b.ndjson', line: 44 } },
    {
      at: at('10:00:06.500'),
      lane: 'g2',
      kind: 'upgrade',
      text: '∅ → attach 200',
      ref: { file: 'server-b.ndjson', line: 80 },
      severity: 'error',
    },
    { at: at('10:00:07.000'), lane: 'g2', kind: 'event.replayed', text: 'id 31 to bob', ref: { file: 'server-b.ndjson', line: 88 }, severity: 'critical' },
    { at: at('10:00:07.500'), lane: null, kind: 'session.terminated', text: 'client_delete', ref: { file: 'server-b.ndjson', line: 95 } },
  ],
  findings: FEED.filter((f) => f.session === 'S-b21e90'),
};

export function fixtureLoadDetail(session: string): SessionDetail | undefined {
  return session === DETAIL_B21E90.session ? DETAIL_B21E90 : undefined;
}
