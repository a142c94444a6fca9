import { writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { Source } from '../../src/read/sources.js';
import { analyzeSources, loadWorkspace, type AnalyzeOptions } from '../../src/api.js';
import type { Finding, Report } from '../../src/model/finding.js';

export type LogLine = Record<string, unknown> | string;

/** A log's text: objects become NDJSON lines, strings are written as-is. */
export function logText(lines: LogLine[]): string {
  return lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
}

/** An in-memory log file (see logText). */
export function logSource(lines: LogLine[], name = 'server.ndjson'): Source {
  const text = logText(lines);
  return { name, path: null, open: () => Readable.from([Buffer.from(text)]) };
}

/** Writes a log file (see logText) and returns its path. */
export function writeLog(path: string, lines: LogLine[]): string {
  writeFileSync(path, logText(lines));
  return path;
}

/** Builds timestamps a fixed number of ms after a base, so tests read as a timeline. */
export function at(ms: number, base = Date.parse('2026-11-09T10:00:00.000Z')): string {
  return new Date(base + ms).toISOString();
}

export async function analyzeLines(lines: LogLine[], opts: AnalyzeOptions = {}): Promise<Report> {
  return analyzeSources([logSource(lines)], opts);
}

export async function analyzeFilesOf(files: Record<string, LogLine[]>, opts: AnalyzeOptions = {}): Promise<Report> {
  return analyzeSources(Object.entries(files).map(([name, lines]) => logSource(lines, name)), opts);
}

export async function workspaceOf(lines: LogLine[]) {
  return loadWorkspace([logSource(lines)]);
}

export function findingsOf(report: Report, rule: string): Finding[] {
  return report.findings.filter((f) => f.rule === rule);
}

/** Evidence as 'line' numbers, for compact assertions on the single test file. */
export function evidenceLines(f: Finding): number[] {
  return f.evidence.map((e) => e.line);
}
