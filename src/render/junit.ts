import type { Report } from '../model/finding.js';
import { RULE_IDS, RULES } from '../model/rules.js';
import { noLineText, quoteLine, sessionLabel, sortFindings, sortNotKnowable, type LineText } from './common.js';
import { escapeXmlAttr, escapeXmlText } from './xml.js';

export interface JunitOptions {
  lineText?: LineText;
}

/**
 * One test case per rule of the catalogue, so a CI test view lists every
 * check that ran; each finding is a <failure> of its rule's case. `failures`
 * counts failing cases (as `tests` counts cases), not findings.
 */
export function renderJunit(report: Report, opts: JunitOptions = {}): string {
  const lineText = opts.lineText ?? noLineText;
  const findings = sortFindings(report.findings);
  const notKnowable = sortNotKnowable(report.not_knowable);
  const failing = new Set(findings.map((f) => f.rule));

  const cases = RULE_IDS.map((id) => {
    const failures = findings
      .filter((f) => f.rule === id)
      .map((f) => {
        const body = [`session: ${sessionLabel(f.session)}`, `at: ${f.at}`, 'evidence:', ...f.evidence.map((ref) => `  ${quoteLine(ref, lineText)}`)];
        return `    <failure message="${escapeXmlAttr(f.message)}" type="${f.severity}">${escapeXmlText(body.join('\n'))}</failure>`;
      });
    const unknown = notKnowable.filter((n) => n.rule === id).map((n) => `not knowable for session ${sessionLabel(n.session)}: ${n.reason}`);
    const out = unknown.length > 0 ? [`    <system-out>${escapeXmlText(unknown.join('\n'))}</system-out>`] : [];
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
