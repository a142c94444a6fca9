import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findingFingerprint } from '../findings/identity.js';
import type { Finding, FindingList, NotKnowable, Report } from '../model/finding.js';
import type { LineRef } from '../model/record.js';
import { catalogueOrder, RULE_IDS, ruleOf } from '../detect/rules/index.js';
import type { Severity } from '../model/severity.js';
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
// v2: the identity no longer includes the message (findings/identity.ts).
const FINGERPRINT = 'resumescope/findingKey/v2';

export function toSarif(report: Report, opts: SarifOptions) {
  const writer = sarifWriter(opts);
  const results = sortFindings(report.findings).map(writer.result);
  return writer.frame([...notifications(report, writer)], results, report.summary.rejected_lines);
}

/** The run's notifications, gravest first: the unusable inputs, the rejected lines, then the rules that could not be judged. */
function* notifications(report: Report<FindingList>, writer: SarifWriter): Generator<SarifNotification> {
  yield* writer.unusable.map(writer.unusableNote);
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
  const writer = sarifWriter(opts);
  // Whether any evidence, or an unusable input's file, lies outside the working directory decides the invocation, written before the lists.
  const files = new Set<string>();
  for (const f of report.findings) for (const ref of f.evidence) files.add(ref.file);
  for (const file of files) writer.artifactOf(file);
  for (const u of writer.unusable) if (u.file) writer.artifactOf(u.name);
  const frame = `${terminalSafeJson(JSON.stringify(writer.frame([], [], report.summary.rejected_lines), null, 2))}\n`;
  // The not-knowables, like the results, one at a time (326k of them at 3M fuzzed lines): the frame is cut where each list goes.
  const notes = frame.lastIndexOf(NOTIFICATIONS_KEY);
  const at = frame.lastIndexOf(RESULTS_KEY);
  yield frame.slice(0, notes + NOTIFICATIONS_KEY.length - 2);
  yield* jsonArrayChunks(notifications(report, writer), (n) => n, 10);
  yield frame.slice(notes + NOTIFICATIONS_KEY.length, at + RESULTS_KEY.length - 2);
  yield* jsonArrayChunks(sortFindings(report.findings), writer.result, 6);
  yield frame.slice(at + RESULTS_KEY.length);
}

/** The snippet of an evidence line: its start, as much as a reader of the result looks at. */
const MAX_SNIPPET_CHARS = 4096;

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

  const frame = (notifications: SarifNotification[], results: ReturnType<typeof result>[], rejectedLines: number) => ({
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
        ...(rejectedLines > 0 ? { properties: { rejectedLines } } : {}),
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
