import type { FindingList, Report } from '../model/finding.js';
import type { FailOn } from '../model/severity.js';
import type { UnusableInput } from '../model/unusable-input.js';
import type { LineText } from './common.js';
import type { LineRecords } from './evidence-summary.js';
import { renderHtml, type HtmlOptions } from './html/index.js';
import { renderJson, renderJsonChunks } from './json.js';
import { renderJunit, renderJunitChunks } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { renderSarif, renderSarifChunks, type SarifOptions } from './sarif.js';
import { renderText } from './text.js';

export type { LineText } from './common.js';
export type { LineRecords } from './evidence-summary.js';
export { explainFinding, explainRule } from './explain.js';
export { lossNote, lossNotes } from './node-losses.js';
export type { RuleExplanation } from '../detect/rule.js';
export type { ChartSeries, RejectedLineView } from './html/index.js';

export const FORMATS = ['text', 'json', 'sarif', 'junit', 'markdown', 'html'] as const;
export type Format = (typeof FORMATS)[number];

export interface RenderOptions {
  /** Resolves evidence to log line text (the CLI reads it through the store). */
  lineText?: LineText;
  /** Text and markdown: the stored records of an evidence line, summarized in one short line each. */
  lineRecords?: LineRecords;
  /** Text and markdown: quote the raw (redacted) lines instead of summaries. */
  raw?: boolean;
  /** Text and markdown: file names relative to this folder when under it. SARIF (required): %SRCROOT%, the folder log paths are relative to. */
  cwd?: string;
  /** Text and markdown: list not-knowable rules (default), or only count them. */
  notKnowable?: boolean;
  /** ANSI colour for text. */
  color?: boolean;
  /** resumescope's version, for SARIF. */
  toolVersion?: string;
  /**
   * Text: findings shown in full per rule; HTML: carried per rule, paged (the rest counted per session);
   * SARIF: results in all, the gravest (absent: every finding).
   */
  maxFindings?: number;
  /** The gate shown in the markdown and HTML status lines. */
  failOn?: FailOn;
  /**
   * The inputs that were unusable (the run exits 2 whatever the findings): every format but JSON
   * says so (JSON's shape is a public interface; its reader has the exit code and stderr).
   */
  unusable?: readonly UnusableInput[];
  /** HTML: a session's timeline for the swimlanes (the CLI reads it from the store). */
  timeline?: HtmlOptions['timeline'];
  /** HTML: the dashboard's chart series. */
  series?: HtmlOptions['series'];
  /** HTML: rejected lines, a page at a time. */
  rejected?: HtmlOptions['rejected'];
}

/** The formats that open with the sessions lost without a log line; the others' shape has no place for them. */
export function showsLosses(format: Format): boolean {
  return format === 'text' || format === 'markdown' || format === 'html';
}

export function isFormat(s: string): s is Format {
  return (FORMATS as readonly string[]).includes(s);
}

/** Report to bytes, in one of the output formats; pure. */
export function render(format: Format, report: Report, opts: RenderOptions = {}): string {
  switch (format) {
    case 'text':
      return renderText(report, textOptions(opts));
    case 'json':
      return renderJson(report);
    case 'sarif':
      return renderSarif(report, sarifOptions(opts));
    case 'junit':
      return renderJunit(report, junitOptions(opts));
    case 'markdown':
      return renderMarkdown(report, markdownOptions(opts));
    case 'html':
      return renderHtml(report, htmlOptions(opts));
    default:
      // A JavaScript caller's typo: no format is no report, said rather than returned as undefined.
      throw new RangeError(`render: unknown format "${String(format)}" (known: ${FORMATS.join(', ')})`);
  }
}

/**
 * render() in pieces to write one after another: JSON (the format a machine reads,
 * with every finding) and SARIF come finding by finding, JUnit rule by rule; the others are one
 * piece. Each reads a table's findings as it goes: text, markdown and html keep only what they show.
 */
export function renderChunks(format: Format, report: Report<FindingList>, opts: RenderOptions = {}): Iterable<string> {
  if (format === 'json') return renderJsonChunks(report);
  if (format === 'text') return [renderText(report, textOptions(opts))];
  if (format === 'sarif') return renderSarifChunks(report, sarifOptions(opts));
  if (format === 'junit') return renderJunitChunks(report, junitOptions(opts));
  if (format === 'markdown') return [renderMarkdown(report, markdownOptions(opts))];
  return [renderHtml(report, htmlOptions(opts))];
}

function htmlOptions(opts: RenderOptions): HtmlOptions {
  const { lineText, failOn, toolVersion, timeline, series, rejected, maxFindings, unusable } = opts;
  return { lineText, failOn, toolVersion, timeline, series, rejected, maxFindings, unusable };
}

function markdownOptions(opts: RenderOptions) {
  return { ...readable(opts), failOn: opts.failOn };
}

function junitOptions(opts: RenderOptions) {
  return { lineText: opts.lineText, failOn: opts.failOn, unusable: opts.unusable };
}

function sarifOptions(opts: RenderOptions): SarifOptions {
  // Render reads no process state: the working directory is the caller's to give.
  if (opts.cwd === undefined) throw new TypeError("render('sarif'): opts.cwd is required, the folder log paths are relative to (%SRCROOT%)");
  return { toolVersion: opts.toolVersion ?? 'unknown', lineText: opts.lineText, unusable: opts.unusable, workingDirectory: opts.cwd, maxResults: opts.maxFindings };
}

function textOptions(opts: RenderOptions) {
  return { ...readable(opts), color: opts.color, maxFindings: opts.maxFindings };
}

/** What the reports a person reads (text, markdown) share. */
function readable(opts: RenderOptions) {
  return { lineText: opts.lineText, lineRecords: opts.lineRecords, raw: opts.raw, cwd: opts.cwd, notKnowable: opts.notKnowable, unusable: opts.unusable };
}
