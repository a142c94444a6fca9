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

  // An embedder's report: a mistyped path gave a clean report and exitCodeFor 0, where the CLI exits 2.
  it('a library gate fails on an unusable input, on an unknown input format and on an unknown report format, as the CLI does', () => {
    const out = importInNode(
      [
        "import { analyzeFiles, exitCodeFor, render } from 'resumescope';",
        "const r = await analyzeFiles(['samples/writers.ndjson', 'no/such.ndjson']);",
        'console.log(JSON.stringify({ unusable: r.unusable, code: exitCodeFor(r, "never"), json: Object.keys(JSON.parse(render("json", r))) }));',
        "const ok = await analyzeFiles(['samples/clean.ndjson']);",
        'console.log(JSON.stringify({ unusable: ok.unusable, code: exitCodeFor(ok, "error") }));',
        "try { await analyzeFiles(['samples/clean.ndjson'], { inputFormat: 'nope' }); } catch (e) { console.log(e.constructor.name, e.message); }",
        "try { render('pdf', ok); } catch (e) { console.log(e.constructor.name, e.message); }",
      ].join('\n'),
    );
    const [bad, ok, format, report] = out.trim().split('\n');
    expect(JSON.parse(bad!)).toEqual({ unusable: [{ name: 'no/such.ndjson', reason: expect.stringMatching(/^cannot read \(ENOENT/), file: true }], code: 2, json: ['version', 'findings', 'not_knowable', 'summary'] });
    expect(JSON.parse(ok!)).toEqual({ unusable: [], code: 0 });
    expect(format).toMatch(/^RangeError inputFormat: unknown format "nope" \(known: auto, resumescope, /);
    expect(report).toBe('RangeError render: unknown format "pdf" (known: text, json, sarif, junit, markdown, html)');
  });
});
