import { at, type LogLine } from '../helpers/logs.js';

// An incident log for what-if tests. The server kept events 30 s (it logs a
// buffer.trimmed once they are older) and resumed anyway, replaying what was
// left: three silent truncations that a longer retention would not have had.
// A fourth session lost an event on a replay while its position was retained.

const session = (id: string, offsetMs: number) => {
  const t = (ms: number) => at(offsetMs + ms);
  return {
    created: { ts: t(0), kind: 'session.created', session: id },
    opened: { ts: t(10), kind: 'stream.opened', session: id, stream: 'g1', via: 'get' },
    sent: (ms: number, eventId: number) => ({ ts: t(ms), kind: 'event.sent', session: id, stream: 'g1', event_id: eventId }),
    closed: (ms: number) => ({ ts: t(ms), kind: 'stream.closed', session: id, stream: 'g1', reason: 'client' }),
    trimmed: (ms: number, oldest: number) => ({ ts: t(ms), kind: 'buffer.trimmed', session: id, stream: 'g1', oldest_retained: oldest }),
    resume: (ms: number, fields: Record<string, unknown>) => ({
      ts: t(ms),
      kind: 'upgrade',
      session: id,
      stream: 'g1',
      new_stream: 'g2',
      decision: 'resume',
      status: 200,
      ...fields,
    }),
  };
};

/** Events 1-3 at 1-3 s, trimmed to 3 at 32 s, resumed from 1 at 60 s replaying only 3. */
function evictedByRetention(id: string, offsetMs: number): LogLine[] {
  const s = session(id, offsetMs);
  return [
    s.created,
    s.opened,
    s.sent(1000, 1),
    s.sent(2000, 2),
    s.sent(3000, 3),
    s.closed(4000),
    s.trimmed(32_000, 3),
    s.resume(60_000, { last_event_id: 1, replayed: 1, first_replayed: 3 }),
  ];
}

/** Nothing trimmed, yet the resume from 1 at 10 s replayed 2 and not 3. */
function shortReplay(id: string, offsetMs: number): LogLine[] {
  const s = session(id, offsetMs);
  return [s.created, s.opened, s.sent(1000, 1), s.sent(2000, 2), s.sent(3000, 3), s.closed(4000), s.resume(10_000, { last_event_id: 1, replayed: 1, first_replayed: 2 })];
}

/** Nothing trimmed: the resume from 1, 60 s after it was sent, replayed everything. */
export function keptAMinute(id: string, offsetMs: number): LogLine[] {
  const s = session(id, offsetMs);
  return [s.created, s.opened, s.sent(1000, 1), s.sent(2000, 2), s.closed(4000), s.resume(61_000, { last_event_id: 1, replayed: 1, first_replayed: 2 })];
}

export const incident: LogLine[] = [
  ...evictedByRetention('S1', 0),
  ...evictedByRetention('S2', 100_000),
  ...evictedByRetention('S3', 200_000),
  ...shortReplay('S4', 300_000),
];

