import { createHash } from 'node:crypto';
import type { FindingList, Report } from '../../model/finding.js';
import { noLineText, reportOrder } from '../common.js';
import { chartsSection } from './charts.js';
import { counted } from './words.js';
import { text } from './escape.js';
import { DEFAULT_HTML_MAX_FINDINGS, DEFAULT_PAGE_SIZE, findingsSection, LineTable } from './findings.js';
import { notKnowableSection, rejectedSection } from './lists.js';
import type { HtmlOptions } from './options.js';
import { PAGER_SCRIPT } from './script.js';
import { STYLE } from './style.js';
import { summarySection } from './summary.js';
import { chooseTimelines, timelinesSection, type NumberedFinding } from './timelines.js';

export type { ChartSeries, HtmlOptions, RejectedLineView } from './options.js';

// One self-contained HTML file: no request leaves it (the policy below
// forbids any), its only style and script are inline and allowed by hash, and
// every string that came from a log is escaped (escape.ts).

/** The incident report as one HTML page; pure (no clock, no I/O besides the readers given). */
export function renderHtml(report: Report<FindingList>, opts: HtmlOptions = {}): string {
  const timelines = chooseTimelines(() => numbered(report.findings), opts.timeline);
  const timelineOf = new Map(timelines.drawn.map((d) => [d.timeline.session, d.index]));
  const lines = new LineTable(opts.lineText ?? noLineText);
  const findings = findingsSection(report.findings, {
    lines,
    timelineOf: (s) => (s === null ? undefined : timelineOf.get(s)),
    pageSize: opts.pageSize ?? DEFAULT_PAGE_SIZE,
    maxFindings: opts.maxFindings ?? DEFAULT_HTML_MAX_FINDINGS,
  });
  const body = [
    summarySection(report, opts.failOn ?? 'error', lines, opts.unusable),
    findings,
    timelinesSection(timelines),
    chartsSection(opts.series),
    notKnowableSection(report),
    rejectedSection(report.summary.rejected_lines, opts.rejected),
  ].join('\n');
  const s = report.summary;
  const subtitle = `${counted(report.findings.length, 'finding')} in ${counted(s.records, 'record')} and ${counted(s.sessions, 'session')}`;
  return page(subtitle, body, lines.dataBlock(), opts.toolVersion);
}

/** The findings in report order, numbered #N as the text report numbers them. */
function* numbered(findings: FindingList): Generator<NumberedFinding> {
  let number = 0;
  for (const finding of reportOrder(findings)) yield { number: ++number, finding };
}

function page(subtitle: string, body: string, data: string, version: string | undefined): string {
  const policy = [
    "default-src 'none'",
    `style-src '${sha256(STYLE)}'`,
    `script-src '${sha256(PAGER_SCRIPT)}'`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="resumescope${version ? ` ${text(version)}` : ''}">
<title>resumescope incident report: ${text(subtitle)}</title>
<style>${STYLE}</style>
</head>
<body>
<header class="top"><h1>resumescope incident report</h1><p>${text(subtitle)}. MCP Streamable HTTP stream and session resumption; evidence is quoted from the logs as stored (credentials redacted).</p>
<nav class="toc"><a href="#summary">Summary</a><a href="#findings">Findings</a><a href="#timelines">Session timelines</a><a href="#charts">Charts</a><a href="#not-knowable">Not knowable</a><a href="#rejected">Rejected lines</a></nav></header>
<main>
${body}
</main>
<footer>resumescope${version ? ` ${text(version)}` : ''} · finding numbers (#N) are those of the text report and <code>resumescope explain -n N</code>.</footer>
${data}
<script>${PAGER_SCRIPT}</script>
</body>
</html>
`;
}

function sha256(s: string): string {
  return `sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}`;
}
