import type { NotKnowable } from '../model/finding.js';
import type { InputSummary } from './summary.js';
import type { DetectOptions } from './types.js';

// What detect/parallel.ts and its worker thread (rules-worker.ts) send each other. Types only.

export interface RulesWorkerData {
  /** The timeline database's file, opened read-only by the worker. */
  path: string;
  /** The file the worker creates and sets its rules' findings down in (detect/findings-file.ts). */
  findingsPath: string;
  options: DetectOptions;
  /** The work, unit by unit (detect/parallel.ts workUnits): rule ids, or the input's summary. */
  units: WorkUnit[];
  /** The next unit to claim, shared by both threads (Atomics.add). */
  counter: Int32Array;
}

/** Rules judged together (they share facts), or the summary of what the input held. */
export type WorkUnit = { rules: string[] } | 'summary';

export type FromRulesWorker =
  /** One rule is done: its findings are committed to the findings file; what it could not judge comes along. */
  | { type: 'rule'; rule: string; notKnowable: NotKnowable[] }
  | { type: 'summary'; summary: InputSummary }
  /** No unit left to claim. */
  | { type: 'done' };
