import type { DetectOptions, DetectorOutput } from './types.js';

// What detect/parallel.ts and its worker thread (rules-worker.ts) send each other. Types only.

export interface RulesWorkerData {
  /** The timeline database's file, opened read-only by the worker. */
  path: string;
  options: DetectOptions;
  /** Rule ids, unit by unit (detect/parallel.ts ruleUnits). */
  units: string[][];
  /** The next unit to claim, shared by both threads (Atomics.add). */
  counter: Int32Array;
}

export type FromRulesWorker =
  /** One unit's outputs, by rule id. */
  | { type: 'unit'; outputs: [string, DetectorOutput][] }
  /** No unit left to claim. */
  | { type: 'done' };
