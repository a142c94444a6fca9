import type { Finding, NodeLoss } from '../model/finding.js';
import { ruleOf } from '../detect/rules/index.js';
import { printable } from '../model/printable.js';
import { quoteLine, sessionLabel, type LineText } from './common.js';
import { lossBehind, lossHeadline } from './node-losses.js';

const WIDTH = 78;

/**
 * A short account of one finding for the person who has to act on it: what
 * happened (the message and the witness lines, in order), why that breaks the
 * boundary between stream and session resumption, and what the server should
 * have done. The witness lines are quoted raw (redacted), whole: explain is
 * where a reader goes for the line itself.
 */
export function explainFinding(finding: Finding, lineText: LineText, cwd?: string, losses?: readonly NodeLoss[]): string {
  const general = ruleOf(finding.rule).explanation;
  // the advice that fits the revision the finding's message names, where the rule's general one does not
  const text = { ...general, ...general.fitted?.(finding.message) };
  // The one fact about the log as a whole a reader of this finding needs: its session was lost with others.
  const loss = lossBehind(losses, finding);
  const context = loss === undefined ? [] : section('What it follows from', `The session was lost without a log line${loss.sessions > 1 ? ', with others' : ''}: ${lossHeadline(loss)}.`);
  const witness =
    finding.evidence.length === 0
      ? ['  (no evidence lines recorded)']
      : finding.evidence.map((ref) => `    ${quoteLine(ref, lineText, Number.POSITIVE_INFINITY, cwd)}`);
  return [
    `${finding.rule} (${finding.severity}): ${ruleOf(finding.rule).summary}`,
    `Session ${sessionLabel(finding.session)}, at ${finding.at}.`,
    '',
    'What happened',
    ...wrap(printable(finding.message), '  '),
    '  The lines that show it, in order:',
    ...witness,
    ...context,
    ...section(WHY_IT_BREAKS, text.whyItBreaks),
    ...section('What the server should have done', text.shouldHave),
    '',
    `More: docs/rules.md#${finding.rule}`,
    '',
  ].join('\n');
}

/** A rule explained on its own, with no log: `explain <rule-id>`, what the docs section says first. */
export function explainRule(id: string): string {
  const rule = ruleOf(id);
  const text = rule.explanation;
  return [
    `${id} (${rule.severity}): ${rule.summary}`,
    ...section('What a finding means', text.meaning),
    ...section(WHY_IT_BREAKS, text.whyItBreaks),
    ...section('What the server should do', text.shouldHave),
    '',
    `More, with a log that fires it and a near miss: docs/rules.md#${id}`,
    '',
  ].join('\n');
}

const WHY_IT_BREAKS = 'Why this breaks the boundary between stream and session resumption';

/** A titled paragraph of prose, after a blank line. */
function section(title: string, prose: string): string[] {
  return ['', title, ...wrap(prose, '  ')];
}

/** Greedy word wrap of prose (log lines are never wrapped: they are quoted as they are). */
function wrap(prose: string, indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of prose.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + line.length + 1 + word.length > WIDTH) {
      lines.push(indent + line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(indent + line);
  return lines;
}
