import type { Report } from '../model/finding.js';
import { meetsThreshold, type FailOn } from '../model/severity.js';
import { RULE_IDS, RULES } from '../model/rules.js';
import { noLineText, quoteLine, sessionLabel, sortFindings, sortNotKnowable, type LineText } from './common.js';
import { escapeXmlAttr, escapeXmlText } from './xml.js';

export interface JunitOptions {
  lineText?: LineText;
  /** The gate: findings below it are listed in <system-out>, not failed, so the file agrees with the exit code. */
  failOn?: FailOn;
}

/**
 * One test case per rule of the catalogue, so a CI test view lists every
 * check that ran; each finding is a <failure> of its rule's case. `failures`
 * counts failing cases (as `tests` counts cases), not findings.
 */
export function renderJunit(report: Report, opts: JunitOptions = {}): string {
  const lineText = opts.lineText ?? noLineText;
  const failOn = opts.failOn ?? 'info';
  const all = sortFindings(report.findings);
  const findings = all.filter((f) => meetsThreshold(f.severity, failOn));
  const belowGate = all.filter((f) => !meetsThreshold(f.severity, failOn));
  const notKnowable = sortNotKnowable(report.not_knowable);
  const failing = new Set(findings.map((f) => f.rule));

  const cases = RULE_IDS.map((id) => {
    const failures = findings
      .filter((f) => f.rule === id)
      .map((f) => {
        const body = [`session: ${sessionLabel(f.session)}`, `at: ${f.at}`, 'evidence:', ...f.evidence.map((ref) => `  ${quoteLine(ref, lineText)}`)];
        return `    <failure message="${escapeXmlAttr(f.message)}" type="${f.severity}">${escapeXmlText(body.join('\n'))}</failure>`;
      });
    const below = belowGate
      .filter((f) => f.rule === id)
      .map((f) => `${f.severity} (below the --fail-on ${failOn} gate): session ${sessionLabel(f.session)} at ${f.at}: ${f.message}`);
    const unknown = notKnowable.filter((n) => n.rule === id).map((n) => `not knowable for session ${sessionLabel(n.session)}: ${n.reason}`);
    const notes = [...below, ...unknown];
    const out = notes.length > 0 ? [`    <system-out>${escapeXmlText(notes.join('\n'))}</system-out>`] : [];
    const open = `  <testcase classname="resumescope.${RULES[id].family}" name="${id}"`;
    return failures.length + out.length === 0 ? `${open}/>` : [`${open}>`, ...failures, ...out, '  </testcase>'].join('\n');
  });

  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="resumescope" tests="${RULE_IDS.length}" failures="${failing.size}" errors="0" skipped="0">`,
    ...cases,
    '</testsuite>',
    '',
  ].join('\n');
}
