import type { RunningServer } from './host.js';
import { openRawGet, type RawStream } from '../../e2e/support/raw-sse.js';
import type { Stoppables } from '../../e2e/support/stoppables.js';
import { waitFor } from '../../e2e/support/wait.js';

// Raw-HTTP probes of the standalone GET stream, for what the suite does not
// exercise: open it, lose it, resume it with Last-Event-ID, and a second GET
// while one is live (409).

const PROTOCOL = '2025-11-25';
const JSON_AND_SSE = 'application/json, text/event-stream';

/** A session opened by hand: initialize, then notifications/initialized. */
export async function rawSession(url: URL): Promise<string> {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, ...headers },
      signal: AbortSignal.timeout(3000),
    });
  const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'probe', version: '1' } } });
  await init.text();
  const session = init.headers.get('mcp-session-id');
  if (session === null) throw new Error(`initialize minted no session (HTTP ${init.status})`);
  const initialized = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL });
  await initialized.text();
  return session;
}

export async function deleteSession(url: URL, session: string): Promise<number> {
  const res = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL }, signal: AbortSignal.timeout(3000) });
  await res.text();
  return res.status;
}

/** The SSE id of the event whose data mentions `marker`. */
export function eventIdOf(text: string, marker: string): string | undefined {
  for (const block of text.split(/\n\n/)) {
    if (!block.includes(marker)) continue;
    const id = /^id: ?(.*)$/m.exec(block)?.[1];
    if (id !== undefined) return id.trim();
  }
  return undefined;
}

export interface GetProbe {
  session: string;
  firstGet: number;
  /** Status of a second GET while the first is live. */
  conflict: number;
  resumeStatus: number;
  /** What the resumed stream carried: tick 3 was sent while no GET was open. */
  resumedText: string;
}

/**
 * Open GET, ticks 1-2 on it, the connection cut, tick 3 while away, then a
 * resumption from tick 2's id (which owes tick 3), then a second GET (409).
 */
export async function probeGetStream(server: RunningServer, stop: Stoppables): Promise<GetProbe> {
  const session = await rawSession(server.url);
  const entry = server.sessions.get(session);
  if (entry === undefined) throw new Error(`server has no session ${session}`);
  const headers = { 'mcp-session-id': session };
  const first: RawStream = stop.add(await openRawGet(server.url, headers), (r) => r.close());
  await entry.notify('tick 1');
  await entry.notify('tick 2');
  await first.waitFor('ticks 1-2 on the GET stream', (t) => t.includes('tick 2'));
  const lastSeen = eventIdOf(first.text(), 'tick 2');
  if (lastSeen === undefined) throw new Error('tick 2 carried no event id');
  if (server.cutGetStreams(session) !== 1) throw new Error('expected one live GET stream to cut');
  await waitFor('the server to see the cut', () => server.cutGetStreams(session) === 0 || undefined);
  await entry.notify('tick 3');
  const resumed = stop.add(await openRawGet(server.url, { ...headers, 'last-event-id': lastSeen }), (r) => r.close());
  // Bounded: tick 3 arrives at once from a store that has it, never from one that does not.
  await resumed.waitFor('tick 3 replayed', (t) => t.includes('tick 3'), 800).catch(() => {});
  const second = await openRawGet(server.url, headers);
  second.close();
  resumed.close();
  await deleteSession(server.url, session);
  return { session, firstGet: first.status, conflict: second.status, resumeStatus: resumed.status, resumedText: resumed.text() };
}

/**
 * Two sessions on one server; B resumes its GET stream with an event id
 * that A's GET stream carried.
 */
export async function probeForeignEventId(server: RunningServer, stop: Stoppables): Promise<{ alice: string; bob: string; status: number; leaked: boolean }> {
  const alice = await rawSession(server.url);
  const bob = await rawSession(server.url);
  const aliceGet = stop.add(await openRawGet(server.url, { 'mcp-session-id': alice }), (r) => r.close());
  const entry = server.sessions.get(alice)!;
  await entry.notify('for alice 1');
  await entry.notify('for alice 2');
  await aliceGet.waitFor("alice's notes", (t) => t.includes('for alice 2'));
  const stolen = eventIdOf(aliceGet.text(), 'for alice 1');
  if (stolen === undefined) throw new Error("alice's note carried no event id");
  const bobGet = stop.add(await openRawGet(server.url, { 'mcp-session-id': bob, 'last-event-id': stolen }), (r) => r.close());
  await bobGet.waitFor("alice's note on bob's stream", (t) => t.includes('for alice 2'), 800).catch(() => {});
  const leaked = bobGet.text().includes('for alice 2');
  bobGet.close();
  aliceGet.close();
  await deleteSession(server.url, alice);
  await deleteSession(server.url, bob);
  return { alice, bob, status: bobGet.status, leaked };
}
