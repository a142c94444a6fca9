import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// What a user of the published package imports: the package.json "exports"
// map resolved by Node itself against the built dist/ (npm ci builds it).
const built = existsSync(new URL('../dist/engine/index.js', import.meta.url));

function importInNode(code: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: new URL('..', import.meta.url), encoding: 'utf8', timeout: 15_000 });
}

describe.runIf(built)('package exports', () => {
  it('resumescope/engine decides a reconnect', () => {
    const out = importInNode(
      "import { ResumptionEngine } from 'resumescope/engine'; const e = new ResumptionEngine(); console.log(JSON.stringify(e.decide({ sessionId: 'nope', lastEventId: null, tsMs: 0 })));",
    );
    expect(JSON.parse(out)).toMatchObject({ decision: 'reject', status: 404 });
  });

  it('resumescope/instrument exposes the recorder and wrappers', () => {
    const out = importInNode("import * as m from 'resumescope/instrument'; console.log(Object.keys(m).sort().join(','));");
    for (const name of ['createRecorder', 'instrumentEventStore', 'instrumentHandler', 'instrumentRequests']) expect(out).toContain(name);
  });

  it('the root export runs the analyzer', () => {
    const out = importInNode(
      "import { analyzeFiles } from 'resumescope'; const r = await analyzeFiles(['samples/writers.ndjson']); console.log(r.findings.length);",
    );
    expect(Number(out)).toBeGreaterThan(0);
  });
});
