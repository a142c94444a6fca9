import type { Report } from '../model/finding.js';
import { ruleOf } from '../detect/rules/index.js';
import type { Severity } from '../model/severity.js';
import {
  countBySeverity,
  groupBySeverityAndRule,
  groupNotKnowable,
  noLineText,
  plural,
  quoteLine,
  SEVERITIES_DESCENDING,
  sessionLabel,
  type LineText,
} from './common.js';

export interface TextOptions {
  lineText?: LineText;
  /** ANSI colour; the CLI turns it on for a TTY without NO_COLOR. */
  color?: boolean;
  /** Findings shown in full per rule; the rest are counted per session. */
  maxFindings?: number;
}

/** Enough of each rule to read its pattern; tens of thousands stay one screen per rule. */
export const DEFAULT_MAX_FINDINGS_PER_RULE = 10;

const SEVERITY_COLOUR: Record<Severity, string> = { critical: '1;35', error: '1;31', warning: '1;33', info: '1;36' };

/** What a person on call reads first: the counts, then the worst findings with the lines that prove them. */
export function renderText(report: Report, opts: TextOptions = {}): string {
  const lineText = opts.lineText ?? noLineText;
  const paint = (code: string, s: string): string => (opts.color ? `\u001b[${code}m${s}\u001b[0m` : s);
  const out: string[] = [summaryLine(report)];
  let number = 0; // #N, as `explain -n N` numbers them (inReportOrder)

  for (const group of groupBySeverityAndRule(report.findings)) {
    out.push('', paint(SEVERITY_COLOUR[group.severity], group.severity.toUpperCase()));
    for (const { rule, findings } of group.rules) {
      out.push(`  ${paint('1', rule)} (${findings.length}) ${paint('2', ruleOf(rule).summary)}`);
      const max = opts.maxFindings ?? DEFAULT_MAX_FINDINGS_PER_RULE;
      for (const f of findings.slice(0, max)) {
        out.push(`    #${++number}  ${f.at}  session ${sessionLabel(f.session)}`, `      ${f.message}`);
        for (const ref of f.evidence) out.push(paint('2', `        ${quoteLine(ref, lineText)}`));
      }
      if (findings.length > max) {
        out.push(...restLines(rule, findings.slice(max), findings.length));
        number += findings.length - max;
      }
    }
  }

  const notKnowable = groupNotKnowable(report.not_knowable);
  if (notKnowable.length > 0) {
    out.push('', paint('1', 'NOT KNOWABLE') + ' (the logs do not hold the facts these rules need; nothing was guessed)');
    for (const g of notKnowable) {
      const sessions = `${g.sessions.length === 1 ? 'session' : 'sessions'} ${g.sessions.map(sessionLabel).join(', ')}`;
      out.push(`  ${paint('1', g.rule)}: ${g.reason} ${paint('2', `(${sessions})`)}`);
    }
  }

  if (noProtocolVersionLogged(report)) {
    out.push('', 'No protocol version was logged: the protocol-revision rules (session-in-stateless-era, replay-in-stateless-era) did not apply.');
  }

  if (report.summary.rejected_lines > 0) {
    out.push(
      '',
      `${plural(report.summary.rejected_lines, 'rejected line')} could not be read as records; see which and why with \`resumescope query rejected\`.`,
    );
  }
  return `${out.join('\n')}\n`;
}

/** The findings not shown, counted per session, and how to see them all. */
function restLines(rule: string, rest: Report['findings'], total: number): string[] {
  const perSession = new Map<string, number>();
  for (const f of rest) perSession.set(f.session ?? '', (perSession.get(f.session ?? '') ?? 0) + 1);
  const top = [...perSession].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const shown = top.slice(0, 8).map(([s, n]) => `${sessionLabel(s === '' ? null : s)} (${n})`);
  const more = top.length > 8 ? `, and ${plural(top.length - 8, 'other session')}` : '';
  return [
    `    … ${plural(rest.length, 'more finding')} in ${plural(perSession.size, 'session')}: ${shown.join(', ')}${more}`,
    `      see them all: --rule ${rule} --max-findings ${total}, --session <id>, or --format json|sarif|junit`,
  ];
}

/** Said once per report, not per session (rules.md, "Protocol revisions"). */
function noProtocolVersionLogged(report: Report): boolean {
  const s = report.summary;
  if (s.protocol_versions === undefined || s.records === 0) return false;
  // Stateless (2026-07-28) requests log a version but have no session to count it under.
  return !Object.keys(s.protocol_versions).some((k) => k !== 'unknown') && s.sessionless_versions !== true;
}

function summaryLine(report: Report): string {
  const s = report.summary;
  const counts = countBySeverity(report.findings);
  const bySeverity = SEVERITIES_DESCENDING.filter((sev) => counts[sev] > 0).map((sev) => `${counts[sev]} ${sev}`);
  const findings = report.findings.length === 0 ? 'no findings' : `${plural(report.findings.length, 'finding')} (${bySeverity.join(', ')})`;
  return [
    `resumescope: ${plural(s.records, 'record')}, ${plural(s.sessions, 'session')}`,
    findings,
    `${plural(s.rejected_lines, 'rejected line')}, ${plural(s.ignored_lines, 'ignored line')}`,
  ].join(' · ');
}
