import type { InputSummary } from './summary.js';
import type { DetectOptions, DetectorOutput } from './types.js';

// What detect/parallel.ts and its worker thread (rules-worker.ts) send each other. Types only.

export interface RulesWorkerData {
  /** The timeline database's file, opened read-only by the worker. */
  path: string;
  options: DetectOptions;
  /** The work, unit by unit (detect/parallel.ts workUnits): rule ids, or the input's summary. */
  units: WorkUnit[];
  /** The next unit to claim, shared by both threads (Atomics.add). */
  counter: Int32Array;
}

/** Rules judged together (they share facts), or the summary of what the input held. */
export type WorkUnit = { rules: string[] } | 'summary';

export type FromRulesWorker =
  /** One rule's output, as soon as the rule is done. */
  | { type: 'rule'; rule: string; output: DetectorOutput }
  | { type: 'summary'; summary: InputSummary }
  /** No unit left to claim. */
  | { type: 'done' };
