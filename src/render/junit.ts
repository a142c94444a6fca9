import type { Finding, FindingList, OrderedFindings, Report } from '../model/finding.js';
import { meetsThreshold, type FailOn } from '../model/severity.js';
import { RULE_IDS, ruleOf, type RuleId } from '../detect/rules/index.js';
import { printable } from '../model/printable.js';
import type { UnusableInput } from '../model/unusable-input.js';
import { GATE_FAILED, noLineText, quoteLine, rejectedLinesNote, sessionLabel, sortFindings, notKnowableOfRule, type LineText } from './common.js';
import { escapeXmlAttr, escapeXmlText } from './xml.js';

export interface JunitOptions {
  lineText?: LineText;
  /** The gate: findings below it are listed in <system-out>, not failed, so the file agrees with the exit code. */
  failOn?: FailOn;
  /** Inputs that were unusable: each a test case in error, in a suite of its own after the rules'. */
  unusable?: readonly UnusableInput[];
}

/**
 * One <testsuite> per rule of the catalogue, so a CI test view lists every
 * check that ran, and one <testcase> per finding at or above the gate, so a
 * viewer that shows one failure per case still shows every finding. A rule
 * with no such finding has one passing case. Findings below the gate and
 * not-knowable sessions go to the suite's <system-out>. Every count agrees
 * with the elements it counts; the attributes the strict (Ant) JUnit schema
 * requires are there, and their values come from the log (the time of the
 * last finding), so the same log always gives the same file.
 */
export function renderJunit(report: Report<FindingList>, opts: JunitOptions = {}): string {
  return [...renderJunitChunks(report, opts)].join('');
}

/** renderJunit's text a suite at a time, each rule's findings read on their own (a table's, from the table). */
export function* renderJunitChunks(report: Report<FindingList>, opts: JunitOptions = {}): Generator<string> {
  const lineText = opts.lineText ?? noLineText;
  const failOn = opts.failOn ?? 'info';
  const findings = report.findings;
  const sorted = Array.isArray(findings) ? sortFindings(findings) : undefined;
  const ofRule = (id: RuleId): Finding[] => (sorted ? sorted.filter((f) => f.rule === id) : [...(findings as OrderedFindings).ofRule(id)]);
  const timestamp = junitTimestamp(sorted ?? findings);
  // The strict schema allows no attribute on <testsuites>: the counts live on each suite.
  yield '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n';
  for (const [index, id] of RULE_IDS.entries()) yield `${suite(id, index, ofRule(id), report, failOn, lineText, timestamp)}\n`;
  const inputs = inputsSuite(opts.unusable ?? [], report.summary.rejected_lines, RULE_IDS.length, timestamp);
  if (inputs !== undefined) yield `${inputs}\n`;
  yield '</testsuites>\n';
}

/**
 * The inputs, as a check of their own: a test case in error per unusable input (the run exits 2
 * whatever the rules found), so that a JUnit view goes red as the exit code does, or one passing
 * case; and the rejected lines counted (log-format.md: counted in every report), not failed, as
 * they do not fail the gate. Left out when there is nothing to say: a clean run's file is as it
 * was. Its id follows the rules', which keep theirs.
 */
function inputsSuite(unusable: readonly UnusableInput[], rejected: number, index: number, timestamp: string): string | undefined {
  if (unusable.length === 0 && rejected === 0) return undefined;
  const failing = unusable.map((u) => {
    const body = `${printable(u.name)}: unusable: ${printable(u.reason)}\n${GATE_FAILED}`;
    return [
      `    <testcase classname="resumescope.inputs" name="${escapeXmlAttr(`input ${printable(u.name)}`)}" time="0">`,
      `      <error message="${escapeXmlAttr(printable(u.reason))}" type="unusable-input">${escapeXmlText(body)}</error>`,
      '    </testcase>',
    ].join('\n');
  });
  const cases = failing.length > 0 ? failing : ['    <testcase classname="resumescope.inputs" name="inputs: every input was usable" time="0"/>'];
  return testsuite({
    name: 'inputs', pkg: 'resumescope.inputs', index, timestamp, tests: cases.length, failures: 0, errors: unusable.length,
    properties: [['unusable-inputs', unusable.length], ['rejected-lines', rejected]],
    cases, err: rejected > 0 ? rejectedLinesNote(rejected) : undefined,
  });
}

/** One <testsuite>: its counts, properties and cases, and what it says on its system-out and system-err. */
function testsuite(s: {
  name: string; pkg: string; index: number; timestamp: string; tests: number; failures: number; errors: number;
  properties: [string, string | number][]; cases: string[]; out?: string | undefined; err?: string | undefined;
}): string {
  const stream = (tag: string, text: string | undefined) => (text === undefined ? `    <${tag}/>` : `    <${tag}>${escapeXmlText(text)}</${tag}>`);
  return [
    `  <testsuite name="${s.name}" package="${s.pkg}" id="${s.index}" timestamp="${s.timestamp}" hostname="resumescope" tests="${s.tests}" failures="${s.failures}" errors="${s.errors}" time="0">`,
    '    <properties>',
    ...s.properties.map(([name, value]) => `      <property name="${name}" value="${value}"/>`),
    '    </properties>',
    ...s.cases,
    stream('system-out', s.out),
    stream('system-err', s.err),
    '  </testsuite>',
  ].join('\n');
}

function suite(id: RuleId, index: number, own: Finding[], report: Report<FindingList>, failOn: FailOn, lineText: LineText, timestamp: string): string {
  const failing = own.filter((f) => meetsThreshold(f.severity, failOn));
  const classname = `resumescope.${ruleOf(id).family}.${id}`;
  const cases =
    failing.length === 0
      ? [`    <testcase classname="${classname}" name="${id}: no finding fails the gate" time="0"/>`]
      : failing.map((f) => {
          const body = [`session: ${sessionLabel(f.session)}`, `at: ${f.at}`, 'evidence:', ...f.evidence.map((ref) => `  ${quoteLine(ref, lineText)}`)];
          return [
            `    <testcase classname="${classname}" name="${escapeXmlAttr(`${id} in ${sessionLabel(f.session)} at ${f.at}`)}" time="0">`,
            `      <failure message="${escapeXmlAttr(printable(f.message))}" type="${f.severity}">${escapeXmlText(body.join('\n'))}</failure>`,
            '    </testcase>',
          ].join('\n');
        });
  const below = own
    .filter((f) => !meetsThreshold(f.severity, failOn))
    .map((f) => `${f.severity} (below the --fail-on ${failOn} gate): session ${sessionLabel(f.session)} at ${f.at}: ${printable(f.message)}`);
  const unknown: string[] = [];
  for (const n of notKnowableOfRule(report.not_knowable, id)) unknown.push(`not knowable for session ${sessionLabel(n.session)}: ${printable(n.reason)}`);
  const notes = [...below, ...unknown];
  return testsuite({
    name: id, pkg: `resumescope.${ruleOf(id).family}`, index, timestamp, tests: Math.max(1, failing.length), failures: failing.length, errors: 0,
    properties: [['severity', ruleOf(id).severity], ['fail-on', failOn]],
    cases, out: notes.length > 0 ? notes.join('\n') : undefined,
  });
}

/** The schema's timestamp is an ISO 8601 time without a zone: the last finding's, in UTC; the epoch when there is none. */
function junitTimestamp(findings: Iterable<Finding>): string {
  let last = '1970-01-01T00:00:00.000Z';
  for (const f of findings) if (f.at > last) last = f.at;
  return last.slice(0, 19);
}
