// The engine replay reads each session's records as one JSON value, but a session
// too long for that (a soak test's) row by row: either way, the engine must see
// the same records in the same order and stop at the same upgrades.

import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/api.js';
import { expandPaths } from '../../src/read/sources.js';
import { forEachUpgrade, type ReplayOptions } from '../../src/replay/engine-replay.js';
import { deriveTimeline } from '../../src/store/derive.js';

const path = (p: string) => fileURLToPath(new URL(`../../${p}`, import.meta.url));
// Server logs, and server logs beside a proxy's (whose paired lines derive shadows): the replay skips those.
const PAIRED = 'test/acceptance/cases/proxy-exports';
const INPUTS = [
  ...['session-continuity.ndjson', 'replay-integrity.ndjson', 'writers.ndjson', 'stream-vs-session.ndjson', 'multi-node', 'sdk'].map((f) => path(`samples/${f}`)),
  ...readdirSync(path(PAIRED)).filter((d) => d.startsWith('mx-')).map((d) => path(`${PAIRED}/${d}`)),
];

async function replayed(opts: ReplayOptions): Promise<unknown[]> {
  const ws = await loadWorkspace(expandPaths(INPUTS));
  try {
    deriveTimeline(ws.db);
    const seen: unknown[] = [];
    forEachUpgrade(ws.db, (p) => seen.push(['upgrade', p.upgrade.id, p.upgrade.session, p.request, p.state?.nextPos, p.recordIdAt(0), p.unknowable]), {
      ...opts,
      onSession: (s) => seen.push(['session', s.session, s.protocolVersion, s.state.nextPos, s.recordIdAt(s.state.nextPos - 1)]),
    });
    return seen;
  } finally {
    ws.db.close();
  }
}

describe('engine replay of long sessions', () => {
  it('visits the same upgrades with the same state whether a session is read whole or row by row', async () => {
    const whole = await replayed({});
    expect(whole.filter((v) => (v as unknown[])[0] === 'session').length).toBeGreaterThan(10);
    expect(whole.filter((v) => (v as unknown[])[0] === 'upgrade').length).toBeGreaterThan(10);
    // every session row by row, and a mix of both (sessions longer than 8 records)
    expect(await replayed({ longSessionRecords: 0 })).toEqual(whole);
    expect(await replayed({ longSessionRecords: 8 })).toEqual(whole);
  });
});
