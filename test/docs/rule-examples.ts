import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Reads the two examples of each `## <rule-id>` section of docs/rules.md: the
// ```ndjson block after the `**Fires on.**` label and the one after the
// `**Near miss (must not fire).**` label. Strict on purpose: a section that
// does not follow that shape is an error, not a skipped example.

export const FIRES_LABEL = '**Fires on.**';
export const NEAR_MISS_LABEL = '**Near miss (must not fire).**';

export interface RuleExamples {
  rule: string;
  /** The NDJSON lines that must make the rule fire. */
  fires: string[];
  /** The NDJSON lines that must not. */
  nearMiss: string[];
}

export const RULES_DOC_PATH = fileURLToPath(new URL('../../docs/rules.md', import.meta.url));

export function readRulesDoc(): string {
  return readFileSync(RULES_DOC_PATH, 'utf8');
}

/** Sections by heading text: everything from `## <heading>` up to the next `## `. */
export function sectionsOf(markdown: string): Map<string, string> {
  const sections = new Map<string, string>();
  for (const part of markdown.split(/^## /m).slice(1)) {
    const newline = part.indexOf('\n');
    const heading = part.slice(0, newline).trim();
    if (sections.has(heading)) throw new Error(`docs/rules.md: two sections named "${heading}"`);
    sections.set(heading, part.slice(newline + 1));
  }
  return sections;
}

// A label paragraph, then (after blank lines only) one fenced ndjson block.
const LABELLED_BLOCK = /^(\*\*[^*\n]+\*\*)[^\n]*\n(?:[ \t]*\n)*```ndjson\n([\s\S]*?)^```[ \t]*$/gm;

export function examplesOf(rule: string, section: string): RuleExamples {
  const byLabel = new Map<string, string[]>();
  for (const m of section.matchAll(LABELLED_BLOCK)) {
    const label = m[1]!;
    if (byLabel.has(label)) throw new Error(`${rule}: two blocks labelled ${label}`);
    byLabel.set(label, m[2]!.split('\n').filter((l) => l.trim() !== ''));
  }
  const fences = section.match(/^```/gm)?.length ?? 0;
  if (fences !== 2 * byLabel.size) throw new Error(`${rule}: a code block without a label right before it`);
  const unknown = [...byLabel.keys()].filter((l) => l !== FIRES_LABEL && l !== NEAR_MISS_LABEL);
  if (unknown.length > 0) throw new Error(`${rule}: a block labelled ${unknown.join(', ')}, not ${FIRES_LABEL} or ${NEAR_MISS_LABEL}`);
  const fires = byLabel.get(FIRES_LABEL);
  const nearMiss = byLabel.get(NEAR_MISS_LABEL);
  if (!fires?.length) throw new Error(`${rule}: no ndjson block after ${FIRES_LABEL}`);
  if (!nearMiss?.length) throw new Error(`${rule}: no ndjson block after ${NEAR_MISS_LABEL}`);
  return { rule, fires, nearMiss };
}
