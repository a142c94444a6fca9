import type { Finding, FindingList, NodeSummary, NotKnowable, Report, Summary } from '../model/finding.js';
import { countsInCatalogueOrder } from '../detect/rules/index.js';
import { terminalSafeJson } from '../model/printable.js';
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
  return Array.from(renderJsonChunks(report)).join('');
}

/**
 * renderJson's bytes in pieces of about 64 KB, item by item, so that a report
 * of tens of thousands of findings and not-knowables is never one string (at 3M
 * production lines: 48 MB, of which the 93k not-knowables are 16 MB, which as
 * one stringify, its re-indented copy and the flattened result took 60 MB at
 * the run's peak). Same bytes as `JSON.stringify(toJsonReport(report), null, 2)`:
 * a JSON text holds no raw newline but its own, so nesting a value two spaces
 * deeper is a replace. A log value's bidi overrides and C1 controls are written as \\u escapes
 * (JSON.stringify escapes only C0): the report read on a terminal cannot be steered by them.
 */
export function* renderJsonChunks(report: Report<FindingList>): Generator<string> {
  yield '{\n  "version": 1,\n  "findings": ';
  yield* jsonArrayChunks(sortFindings(report.findings), finding);
  yield ',\n  "not_knowable": ';
  yield* jsonArrayChunks(sortNotKnowable(report.not_knowable), notKnowable);
  yield `,\n  "summary": ${nested(summary(report.summary), 2)}\n}\n`;
}

/** An array whose key is `depth` spaces in, as `nested(items.map(shape), depth)` would write it, an item at a time. */
export function* jsonArrayChunks<T>(items: Iterable<T>, shape: (item: T) => unknown, depth = 2): Generator<string> {
  const indent = ' '.repeat(depth + 2);
  let chunk = '[';
  let first = true;
  for (const item of items) {
    chunk += `${first ? '' : ','}\n${indent}${nested(shape(item), depth + 2)}`;
    first = false;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  yield first ? '[]' : `${chunk}\n${' '.repeat(depth)}]`;
}

/**
 * JSON.stringify(value, null, 2), terminal-safe as nested() writes it, in pieces of about CHUNK_CHARS: an object
 * key by key and an array item by item. A what-if report's flips were one string, then its terminal-safe copy:
 * 34 MB of JSON for a 400k-line log of long sessions, and the run's peak (570 MB against 410 MB before it).
 */
export function* jsonChunks(value: unknown): Generator<string> {
  let buffer = '';
  for (const piece of valueChunks(value, 0)) {
    buffer += piece;
    if (buffer.length >= CHUNK_CHARS) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer !== '') yield buffer;
}

function* valueChunks(value: unknown, depth: number): Generator<string> {
  // As JSON.stringify: an array item it cannot write is null; an object key whose value it cannot write is left out.
  if (Array.isArray(value)) {
    yield* jsonArrayChunks(value, (item: unknown) => (unwritable(item) ? null : item), depth);
    return;
  }
  if (typeof value !== 'object' || value === null || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    yield nested(value, depth);
    return;
  }
  const entries = Object.entries(value).filter(([, v]) => !unwritable(v));
  if (entries.length === 0) {
    yield '{}';
    return;
  }
  const indent = ' '.repeat(depth + 2);
  let first = true;
  for (const [key, v] of entries) {
    yield `${first ? '{' : ','}\n${indent}${terminalSafeJson(JSON.stringify(key))}: `;
    yield* valueChunks(v, depth + 2);
    first = false;
  }
  yield `\n${' '.repeat(depth)}}`;
}

function unwritable(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

/** The size of a piece of a report written one after another (JSON, SARIF, timelines). */
export const CHUNK_CHARS = 1 << 16;

/** JSON.stringify(value, null, 2) as it reads `depth` spaces in, terminal-safe (the same value, read back). */
export function nested(value: unknown, depth: number): string {
  return terminalSafeJson(JSON.stringify(value, null, 2).replace(/\n/g, `\n${' '.repeat(depth)}`));
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
    by_rule: countsInCatalogueOrder(new Map(Object.entries(s.by_rule))),
    nodes,
    protocol_versions: sortedKeys(s.protocol_versions ?? {}),
  };
}

function sortedKeys(o: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k]!;
  return out;
}
