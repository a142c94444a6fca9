import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findingFingerprint } from '../findings/identity.js';
import type { Finding, FindingList, NotKnowable, Report } from '../model/finding.js';
import type { LineRef } from '../model/record.js';
import { catalogueOrder, RULE_IDS, ruleOf } from '../detect/rules/index.js';
import { SEVERITIES, severityRank, type Severity } from '../model/severity.js';
import type { UnusableInput } from '../model/unusable-input.js';
import { printable, terminalSafeJson } from '../model/printable.js';
import { GATE_FAILED, noLineText, rejectedLinesNote, sessionLabel, sortFindings, sortNotKnowable, truncate, type LineText } from './common.js';
import { jsonArrayChunks } from './json.js';

export interface SarifOptions {
  /** resumescope's own version, for tool.driver.version. */
  toolVersion: string;
  /** Adds each evidence line's text as region.snippet where it resolves. */
  lineText?: LineText;
  /** Where the rule docs live; each rule's helpUri is this plus `#<rule-id>`. */
  rulesDocUri?: string;
  /** %SRCROOT%, the directory log paths are relative to: the caller's current directory, given (render is pure). */
  workingDirectory: string;
  /** Inputs that were unusable: the run's execution did not succeed, and each is an error notification. */
  unusable?: readonly UnusableInput[];
  /**
   * `--max-findings`, given: at most this many results, the gravest (severity, then the report's order); the
   * run says what it left out. Absent: every finding, as the JSON report carries them.
   */
  maxResults?: number;
}

export type SarifLevel = 'error' | 'warning' | 'note';

/** SARIF has no "critical": it becomes error, and properties.severity keeps the original. */
export const SARIF_LEVEL: Record<Severity, SarifLevel> = { critical: 'error', error: 'error', warning: 'warning', info: 'note' };

const SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
const INFORMATION_URI = 'https://www.npmjs.com/package/resumescope';
/** SARIF wants absolute help URIs: the rule docs as shipped in the npm package of this very version. */
const rulesDocUri = (version: string) => `https://unpkg.com/resumescope@${version}/docs/rules.md`;
/** Relative log paths are relative to the checkout, the base GitHub code scanning resolves. */
const SRCROOT = '%SRCROOT%';
// v2: the identity no longer includes the message (findings/identity.ts). Not renamed when the rules settled
// at the end of the log stopped being keyed on a line number: a new name closes and reopens every alert once,
// the same name only those rules' alerts.
const FINGERPRINT = 'resumescope/findingKey/v2';

export function toSarif(report: Report, opts: SarifOptions) {
  const cap = resultCap(report.findings, opts.maxResults);
  const writer = sarifWriter(opts);
  const results = sortFindings(report.findings).filter(cap.keeps()).map(writer.result);
  return writer.frame([...notifications(report, writer, cap)], results, report.summary.rejected_lines, cap);
}

/**
 * GitHub code scanning rejects an upload of more than 25,000 results per run, and ignores the results
 * past the first 5,000 (REST API, "Upload an analysis as SARIF data"). Not a default cap: json, sarif
 * and junit carry every finding unless told otherwise, so a report above it is only warned of.
 */
export const CODE_SCANNING_MAX_RESULTS = 25_000;
export const CODE_SCANNING_RESULTS_KEPT = 5_000;

/** Which findings the results carry under `maxResults`, and how many of each rule they leave out. */
interface ResultCap {
  /** A fresh filter for one pass over the findings in the report's order. */
  keeps(): (f: Finding) => boolean;
  max?: number;
  total: number;
  /** Left out per rule id, in catalogue order; empty when none is. */
  leftOut: Map<string, number>;
}

/**
 * The `max` gravest findings: every one of the severities above the one the cap falls in, and of that
 * one the first in the report's order (timeline order), so that each pass over the findings keeps the
 * same ones while reading them one at a time. Two passes more where the cap applies, none otherwise.
 */
function resultCap(findings: FindingList, max: number | undefined): ResultCap {
  const total = findings.length;
  if (max === undefined || total <= max) return { keeps: () => () => true, total, leftOut: new Map(), ...(max !== undefined && { max }) };
  const bySeverity = new Map<Severity, number>();
  for (const f of findings) bySeverity.set(f.severity, (bySeverity.get(f.severity) ?? 0) + 1);
  // From the gravest down: the severity the cap falls in, and how many of it fit.
  let room = max;
  let cut: Severity = 'critical';
  for (const s of [...SEVERITIES].reverse()) {
    cut = s;
    const n = bySeverity.get(s) ?? 0;
    if (n >= room) break;
    room -= n;
  }
  const keeps = () => {
    let ofCut = 0;
    return (f: Finding) => severityRank(f.severity) > severityRank(cut) || (f.severity === cut && ofCut++ < room);
  };
  const counts = new Map<string, number>();
  const kept = keeps();
  for (const f of sortFindings(findings)) if (!kept(f)) counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
  const leftOut = new Map([...counts].sort(([a], [b]) => catalogueOrder(a) - catalogueOrder(b)));
  return { keeps, max, total, leftOut };
}

function leftOutCount(cap: ResultCap): number {
  let n = 0;
  for (const count of cap.leftOut.values()) n += count;
  return n;
}

/** What `--max-findings` left out, said in the run (a notification) and on stderr alike. */
function leftOutText(cap: ResultCap): string {
  const rules = [...cap.leftOut].map(([rule, n]) => `${rule} ${n}`).join(', ');
  return `${leftOutCount(cap)} of ${cap.total} findings left out by --max-findings ${cap.max} (the gravest kept, by severity then time): ${rules}`;
}

/**
 * Lines for stderr about the SARIF report's size: what `--max-findings` left out, or, with no cap, that
 * GitHub code scanning would reject the upload. Never in the report: a report above the limit is still
 * what was asked for.
 */
export function sarifSizeNotes(findings: FindingList, maxResults: number | undefined): string[] {
  if (maxResults === undefined) {
    if (findings.length <= CODE_SCANNING_MAX_RESULTS) return [];
    return [
      `resumescope: the SARIF report has ${findings.length} results: GitHub code scanning rejects an upload of more than ` +
        `${CODE_SCANNING_MAX_RESULTS.toLocaleString('en-US')} and ignores those past ${CODE_SCANNING_RESULTS_KEPT.toLocaleString('en-US')}; ` +
        `--max-findings ${CODE_SCANNING_RESULTS_KEPT} keeps the gravest\n`,
    ];
  }
  const cap = resultCap(findings, maxResults);
  return cap.leftOut.size === 0 ? [] : [`resumescope: SARIF: ${leftOutText(cap)}\n`];
}

/** The run's notifications, gravest first: the unusable inputs, the findings left out, the rejected lines, then the rules that could not be judged. */
function* notifications(report: Report<FindingList>, writer: SarifWriter, cap: ResultCap): Generator<SarifNotification> {
  yield* writer.unusable.map(writer.unusableNote);
  if (cap.leftOut.size > 0) yield { level: 'warning', message: { text: leftOutText(cap) } };
  const rejected = report.summary.rejected_lines;
  if (rejected > 0) yield { level: 'warning', message: { text: rejectedLinesNote(rejected) } };
  for (const n of sortNotKnowable(report.not_knowable)) yield writer.notification(n);
}

/**
 * The SARIF log as text, in pieces to write one after another: its results come one finding at
 * a time (a bad server's log is hundreds of MB, more than one string may hold). The same bytes
 * as `JSON.stringify(toSarif(report), null, 2)`: the results are the run's last key.
 */
export function* renderSarifChunks(report: Report<FindingList>, opts: SarifOptions): Generator<string> {
  const cap = resultCap(report.findings, opts.maxResults);
  const writer = sarifWriter(opts);
  // Whether any evidence, or an unusable input's file, lies outside the working directory decides the invocation, written before the lists.
  const files = new Set<string>();
  const cited = cap.leftOut.size === 0 ? report.findings : keptOf(sortFindings(report.findings), cap.keeps());
  for (const f of cited) for (const ref of f.evidence) files.add(ref.file);
  for (const file of files) writer.artifactOf(file);
  for (const u of writer.unusable) if (u.file) writer.artifactOf(u.name);
  const frame = `${terminalSafeJson(JSON.stringify(writer.frame([], [], report.summary.rejected_lines, cap), null, 2))}\n`;
  // The not-knowables, like the results, one at a time (326k of them at 3M fuzzed lines): the frame is cut where each list goes.
  const notes = frame.lastIndexOf(NOTIFICATIONS_KEY);
  const at = frame.lastIndexOf(RESULTS_KEY);
  yield frame.slice(0, notes + NOTIFICATIONS_KEY.length - 2);
  yield* jsonArrayChunks(notifications(report, writer, cap), (n) => n, 10);
  yield frame.slice(notes + NOTIFICATIONS_KEY.length, at + RESULTS_KEY.length - 2);
  yield* jsonArrayChunks(keptOf(sortFindings(report.findings), cap.keeps()), writer.result, 6);
  yield frame.slice(at + RESULTS_KEY.length);
}

/** The snippet of an evidence line: its start, as much as a reader of the result looks at. */
const MAX_SNIPPET_CHARS = 4096;

function* keptOf(findings: Iterable<Finding>, keep: (f: Finding) => boolean): Generator<Finding> {
  for (const f of findings) if (keep(f)) yield f;
}

const NOTIFICATIONS_KEY = '"toolExecutionNotifications": []';
const RESULTS_KEY = '"results": []';

type SarifWriter = ReturnType<typeof sarifWriter>;

/** A toolExecutionNotification: a rule not judged (note) or an input not read (error, at its file). */
interface SarifNotification {
  level: SarifLevel;
  message: { text: string };
  locations?: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string } } }[];
  associatedRule?: { id: string; index: number };
}

function sarifWriter(opts: SarifOptions) {
  const lineText = opts.lineText ?? noLineText;
  const unusable = opts.unusable ?? [];
  const docs = opts.rulesDocUri ?? rulesDocUri(opts.toolVersion);
  const ruleIndex = (id: string): number => catalogueOrder(id);
  const cwd = opts.workingDirectory;
  let outsideRoot = false;
  const artifactOf = (file: string) => {
    const a = artifactLocation(file, cwd);
    if (a.uriBaseId === undefined) outsideRoot = true;
    return a;
  };

  const location = (ref: LineRef) => {
    const line = lineText(ref);
    // A line may be megabytes (message bodies, up to the reader's 16 MiB), and is quoted once per citation.
    const text = line === undefined ? undefined : truncate(line, MAX_SNIPPET_CHARS);
    return {
      physicalLocation: {
        artifactLocation: artifactOf(ref.file),
        region: text === undefined ? { startLine: ref.line } : { startLine: ref.line, snippet: { text } },
      },
    };
  };

  const result = (f: Finding) => {
    const [primary, ...related] = f.evidence;
    return {
      ruleId: f.rule,
      ruleIndex: ruleIndex(f.rule),
      level: SARIF_LEVEL[f.severity],
      message: { text: `${printable(f.message)} (session ${sessionLabel(f.session)}, ${f.at})` },
      ...(primary ? { locations: [location(primary)] } : {}),
      ...(related.length > 0
        ? { relatedLocations: related.map((ref, i) => ({ id: i + 1, ...location(ref), message: { text: 'further evidence' } })) }
        : {}),
      partialFingerprints: { [FINGERPRINT]: findingFingerprint(f) },
      properties: { severity: f.severity, session: f.session, at: f.at },
    };
  };

  const notification = (n: NotKnowable): SarifNotification => ({
    level: 'note' as const,
    message: { text: `${n.rule} not knowable for session ${sessionLabel(n.session)}: ${printable(n.reason)}` },
    associatedRule: { id: n.rule, index: ruleIndex(n.rule) },
  });

  const unusableNote = (u: UnusableInput): SarifNotification => ({
    level: 'error',
    message: { text: `${printable(u.name)}: unusable: ${printable(u.reason)}; ${GATE_FAILED}` },
    ...(u.file ? { locations: [{ physicalLocation: { artifactLocation: artifactOf(u.name) } }] } : {}),
  });

  const frame = (notifications: SarifNotification[], results: ReturnType<typeof result>[], rejectedLines: number, cap: ResultCap) => ({
    $schema: SCHEMA,
    version: '2.1.0' as const,
    runs: [
      {
        tool: {
          driver: {
            name: 'resumescope',
            version: opts.toolVersion,
            informationUri: INFORMATION_URI,
            rules: RULE_IDS.map((id) => ({
              id,
              name: ruleName(id),
              shortDescription: { text: ruleOf(id).summary },
              fullDescription: { text: ruleOf(id).explanation.meaning },
              help: { text: ruleOf(id).explanation.shouldHave },
              helpUri: `${docs}#${id}`,
              defaultConfiguration: { level: SARIF_LEVEL[ruleOf(id).severity] },
              properties: { severity: ruleOf(id).severity, tags: [ruleOf(id).family] },
            })),
          },
        },
        originalUriBaseIds: { [SRCROOT]: { description: { text: 'the directory resumescope was run in' } } },
        // Rules the logs could not judge are not results (nothing was found) but must not vanish either.
        invocations: [
          {
            // An unusable input is a run that did not do its job, whatever it found in the others (exit 2).
            executionSuccessful: unusable.length === 0,
            // A log outside %SRCROOT% is an absolute file URI: the working directory tells code
            // scanning where the checkout is (GH1006), so the file is not rejected.
            ...(outsideRoot ? { workingDirectory: { uri: pathToFileURL(cwd.endsWith(sep) ? cwd : cwd + sep).href } } : {}),
            toolExecutionNotifications: notifications,
          },
        ],
        // Counted as the JSON summary counts them; absent when none, so a clean run's log is as it was.
        ...(rejectedLines > 0 || cap.leftOut.size > 0
          ? {
              properties: {
                ...(rejectedLines > 0 && { rejectedLines }),
                // What --max-findings left out, per rule: the results are not every finding.
                ...(cap.leftOut.size > 0 && { maxFindings: cap.max, findingsLeftOut: Object.fromEntries(cap.leftOut) }),
              },
            }
          : {}),
        // Last: renderSarifChunks cuts the frame where the results go.
        results,
      },
    ],
  });
  return { result, notification, unusableNote, unusable, frame, artifactOf };
}

/**
 * A log inside the working directory is a URI relative to %SRCROOT%, as GitHub
 * code scanning expects (GH1005, GH1006); one outside it (or `..` above it) an
 * absolute file URI. `#`, `?` and `:` are escaped, so that a file name never
 * reads as a fragment, a query or a scheme.
 */
function artifactLocation(file: string, cwd: string): { uri: string; uriBaseId?: string } {
  const rel = relative(cwd, resolve(cwd, file));
  if (isAbsolute(rel) || rel === '..' || rel.startsWith(`..${sep}`)) return { uri: pathToFileURL(resolve(cwd, file)).href };
  const uri = encodeURI(rel.split(sep).join('/')).replace(/[#?:]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return { uri, uriBaseId: SRCROOT };
}

/** SARIF's friendly rule name (reportingDescriptor.name, SARIF2012): the id in PascalCase. */
function ruleName(id: string): string {
  return id.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

export function renderSarif(report: Report<FindingList>, opts: SarifOptions): string {
  return [...renderSarifChunks(report, opts)].join('');
}
