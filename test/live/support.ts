import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FollowEvent } from '../../src/read/follow.js';
import { waitFor as poll } from '../helpers/wait.js';

export function tempDir(): { path: string; file(name: string): string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'resumescope-live-'));
  return { path, file: (name) => join(path, name), remove: () => rmSync(path, { recursive: true, force: true }) };
}

export { sleep } from '../helpers/wait.js';

/** The shared poll, with the live tests' default bound of 5 s. */
export function waitFor<T>(what: string, check: () => T | undefined | false, timeoutMs = 5000): Promise<T> {
  return poll(what, check, timeoutMs);
}

/** Runs a follower in the background, collecting its events, until stopped. */
export function collect(events: AsyncGenerator<FollowEvent>): { events: FollowEvent[]; done: Promise<void>; texts(source?: string): string[] } {
  const out: FollowEvent[] = [];
  const done = (async () => {
    for await (const e of events) out.push(e);
  })();
  return {
    events: out,
    done,
    texts: (source) =>
      out.flatMap((e) => (e.type === 'lines' && (source === undefined || e.source === source) ? e.lines.map((l) => ('text' in l ? l.text : `!${l.error}`)) : [])),
  };
}

const BASE = Date.parse('2026-11-09T10:00:00.000Z');

/** One log line: a record at `offsetMs` after a fixed base time. */
export function rec(offsetMs: number, fields: Record<string, unknown>): string {
  return JSON.stringify({ ts: new Date(BASE + offsetMs).toISOString(), ...fields }) + '\n';
}

/** A request carrying Last-Event-ID but no session, accepted: event-id-without-session (rules.md). */
export function violatingLine(offsetMs: number, eventId: number | string = 5): string {
  return rec(offsetMs, { kind: 'upgrade', session: null, last_event_id: eventId, decision: 'resume', status: 200, new_stream: `g-${eventId}` });
}

/** A healthy session's opening: created, a GET stream, an event. */
export function healthyLines(session: string, offsetMs = 0): string {
  return (
    rec(offsetMs, { kind: 'session.created', session, principal: 'alice' }) +
    rec(offsetMs + 1, { kind: 'stream.opened', session, stream: 'g1', via: 'get' }) +
    rec(offsetMs + 2, { kind: 'event.sent', session, stream: 'g1', event_id: 1 })
  );
}
