import type { Finding, NodeSummary, NotKnowable, Report, Summary } from '../model/finding.js';
import { RULE_IDS } from '../detect/rules/index.js';
import { sortFindings, sortNotKnowable } from './common.js';

/**
 * The report in exactly the public shape of the contract, with a fixed key
 * order and findings in timeline order, so that two runs on the same logs
 * give byte-identical output (diffable, cacheable). Fields a detector may
 * have attached beyond the contract are left out.
 */
export function toJsonReport(report: Report): Report {
  return {
    version: 1,
    findings: sortFindings(report.findings).map(finding),
    not_knowable: sortNotKnowable(report.not_knowable).map(notKnowable),
    summary: summary(report.summary),
  };
}

export function renderJson(report: Report): string {
  return `${JSON.stringify(toJsonReport(report), null, 2)}\n`;
}

function finding(f: Finding): Finding {
  return {
    rule: f.rule,
    severity: f.severity,
    session: f.session,
    at: f.at,
    message: f.message,
    evidence: f.evidence.map((e) => ({ file: e.file, line: e.line })),
  };
}

function notKnowable(n: NotKnowable): NotKnowable {
  return { rule: n.rule, session: n.session, reason: n.reason };
}

function summary(s: Summary): Summary {
  const byRule: Summary['by_rule'] = {};
  for (const id of RULE_IDS) {
    const n = s.by_rule[id];
    if (n !== undefined) byRule[id] = n;
  }
  const nodes: Record<string, NodeSummary> = {};
  for (const name of Object.keys(s.nodes).sort()) {
    const node = s.nodes[name]!;
    nodes[name] = node.skew_ms === undefined ? { records: node.records } : { records: node.records, skew_ms: node.skew_ms };
  }
  return {
    records: s.records,
    rejected_lines: s.rejected_lines,
    ignored_lines: s.ignored_lines,
    sessions: s.sessions,
    by_rule: byRule,
    nodes,
    protocol_versions: sortedKeys(s.protocol_versions ?? {}),
  };
}

function sortedKeys(o: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k]!;
  return out;
}
