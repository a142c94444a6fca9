import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { loadWorkspace } from '../../src/api.js';
import { htmlReaders } from '../../src/cli/html-readers.js';
import { lineTextResolver } from '../../src/detect/evidence.js';
import { detect } from '../../src/pipeline/derived.js';
import type { Finding, Report } from '../../src/model/finding.js';
import { ruleOf, RULE_IDS } from '../../src/detect/rules/index.js';
import type { Source } from '../../src/read/sources.js';
import { renderHtml, type HtmlOptions } from '../../src/render/html/index.js';

// Logs whose fields are HTML and script, and the HTML report drawn from them
// through the store, as `analyze --format html` draws it.

export const SCRIPT_PAYLOAD = '<script>window.__pwned=1</script>';
export const IMG_PAYLOAD = '"><img src=x onerror="window.__pwned=2">';
export const BREAKOUT_PAYLOAD = '</script><script>window.__pwned=3</script>';
export const REJECTED_PAYLOAD = 'not json <script>window.__pwned=4</script> <img src=x onerror=window.__pwned=5>';

/**
 * samples/writers.ndjson (six findings in one session) with a hostile session
 * id, stream id and principal, and a hostile rejected line; `sessions` copies
 * of it (the second and later sessions' ids end in " #2", …) give each rule
 * that many findings, so that a small page size pages them.
 */
export function hostileLog(sessions = 1): string {
  const sample = readFileSync('samples/writers.ndjson', 'utf8').split('\n').filter((l) => l.trim() !== '');
  const lines = Array.from({ length: sessions }, (_, copy) =>
    sample.map((l) => {
      const o = JSON.parse(l) as Record<string, unknown>;
      const suffix = copy === 0 ? '' : ` #${copy + 1}`;
      for (const [k, v] of Object.entries(o)) {
        if (v === 'S-1001') o[k] = `${SCRIPT_PAYLOAD}${suffix}`;
        if (v === 'U2') o[k] = `U2${IMG_PAYLOAD}`;
        if (v === 'tok:mallory') o[k] = `tok:${BREAKOUT_PAYLOAD}`;
      }
      return JSON.stringify(o);
    }),
  ).flat();
  return [...lines, REJECTED_PAYLOAD].join('\n') + '\n';
}

export function textSource(name: string, text: string): Source {
  return { name, path: null, open: () => Readable.from([Buffer.from(text)]) };
}

/** The HTML report of these logs, with the store's readers (timelines, charts, rejected lines). */
export async function htmlOfLogs(files: Record<string, string>, opts: HtmlOptions = {}): Promise<{ html: string; report: Report }> {
  const ws = await loadWorkspace(Object.entries(files).map(([name, text]) => textSource(name, text)));
  try {
    const report = detect(ws.db);
    const html = renderHtml(report, { lineText: lineTextResolver(ws.db), ...htmlReaders(ws.db), ...opts });
    return { html, report };
  } finally {
    ws.db.close();
  }
}

/**
 * A report of `n` findings spread over every rule and `n / 4` sessions, each
 * with two evidence lines of its own, and a hostile line among them: the
 * shape of a bad server's soak test, without the minute it takes to analyze one.
 */
export function manyFindings(n: number): { report: Report; lineText: (ref: { file: string; line: number }) => string | undefined } {
  const findings: Finding[] = [];
  for (let i = 0; i < n; i++) {
    const rule = RULE_IDS[i % RULE_IDS.length]!;
    findings.push({
      rule,
      severity: ruleOf(rule).severity,
      session: `sess-${i % Math.max(1, Math.floor(n / 4))}`,
      at: new Date(Date.parse('2026-11-09T10:00:00.000Z') + i * 10).toISOString(),
      message: `finding ${i} of ${rule}${i === n - 1 ? ` ${SCRIPT_PAYLOAD}` : ''}`,
      evidence: [
        { file: 'bad-server.ndjson', line: 2 * i + 1 },
        { file: 'bad-server.ndjson', line: 2 * i + 2 },
      ],
    });
  }
  const byRule: Report['summary']['by_rule'] = {};
  for (const f of findings) byRule[f.rule] = (byRule[f.rule] ?? 0) + 1;
  const report: Report = {
    version: 1,
    findings,
    not_knowable: [],
    summary: { records: 2 * n, rejected_lines: 0, ignored_lines: 0, sessions: Math.floor(n / 4), by_rule: byRule, nodes: { 'node-a': { records: 2 * n } }, protocol_versions: { unknown: Math.floor(n / 4) } },
  };
  const lineText = (ref: { file: string; line: number }) =>
    ref.line === 2 * n ? `{"kind":"upgrade","note":"${IMG_PAYLOAD.replace(/"/g, '\\"')}"}` : `{"ts":"2026-11-09T10:00:00.000Z","kind":"upgrade","session":"sess-${ref.line >> 3}","line":${ref.line},"decision":"resume","status":200}`;
  return { report, lineText };
}
