import type { Finding, Report } from '../model/finding.js';
import { meetsThreshold, type FailOn } from '../model/severity.js';
import { RULE_IDS, ruleOf, type RuleId } from '../detect/rules/index.js';
import { noLineText, quoteLine, sessionLabel, sortFindings, sortNotKnowable, type LineText } from './common.js';
import { escapeXmlAttr, escapeXmlText } from './xml.js';

export interface JunitOptions {
  lineText?: LineText;
  /** The gate: findings below it are listed in <system-out>, not failed, so the file agrees with the exit code. */
  failOn?: FailOn;
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
export function renderJunit(report: Report, opts: JunitOptions = {}): string {
  const lineText = opts.lineText ?? noLineText;
  const failOn = opts.failOn ?? 'info';
  const all = sortFindings(report.findings);
  const timestamp = junitTimestamp(all);
  const suites = RULE_IDS.map((id, index) => suite(id, index, all, report, failOn, lineText, timestamp));
  // The strict schema allows no attribute on <testsuites>: the counts live on each suite.
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites>',
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

function suite(id: RuleId, index: number, all: Finding[], report: Report, failOn: FailOn, lineText: LineText, timestamp: string): string {
  const own = all.filter((f) => f.rule === id);
  const failing = own.filter((f) => meetsThreshold(f.severity, failOn));
  const classname = `resumescope.${ruleOf(id).family}.${id}`;
  const cases =
    failing.length === 0
      ? [`    <testcase classname="${classname}" name="${id}: no finding fails the gate" time="0"/>`]
      : failing.map((f) => {
          const body = [`session: ${sessionLabel(f.session)}`, `at: ${f.at}`, 'evidence:', ...f.evidence.map((ref) => `  ${quoteLine(ref, lineText)}`)];
          return [
            `    <testcase classname="${classname}" name="${escapeXmlAttr(`${id} in ${sessionLabel(f.session)} at ${f.at}`)}" time="0">`,
            `      <failure message="${escapeXmlAttr(f.message)}" type="${f.severity}">${escapeXmlText(body.join('\n'))}</failure>`,
            '    </testcase>',
          ].join('\n');
        });
  const below = own
    .filter((f) => !meetsThreshold(f.severity, failOn))
    .map((f) => `${f.severity} (below the --fail-on ${failOn} gate): session ${sessionLabel(f.session)} at ${f.at}: ${f.message}`);
  const unknown = sortNotKnowable(report.not_knowable)
    .filter((n) => n.rule === id)
    .map((n) => `not knowable for session ${sessionLabel(n.session)}: ${n.reason}`);
  const notes = [...below, ...unknown];
  const tests = Math.max(1, failing.length);
  return [
    `  <testsuite name="${id}" package="resumescope.${ruleOf(id).family}" id="${index}" timestamp="${timestamp}" hostname="resumescope" tests="${tests}" failures="${failing.length}" errors="0" time="0">`,
    '    <properties>',
    `      <property name="severity" value="${ruleOf(id).severity}"/>`,
    `      <property name="fail-on" value="${failOn}"/>`,
    '    </properties>',
    ...cases,
    notes.length > 0 ? `    <system-out>${escapeXmlText(notes.join('\n'))}</system-out>` : '    <system-out/>',
    '    <system-err/>',
    '  </testsuite>',
  ].join('\n');
}

/** The schema's timestamp is an ISO 8601 time without a zone: the last finding's, in UTC; the epoch when there is none. */
function junitTimestamp(findings: Finding[]): string {
  const last = findings.reduce((m, f) => (f.at > m ? f.at : m), '1970-01-01T00:00:00.000Z');
  return last.slice(0, 19);
}
