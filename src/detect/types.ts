import type { Finding, NotKnowable } from '../model/finding.js';

// The thresholds are the analysis's options; they live in model/ so that the
// replay stage below detect reads the same definition.
export { DEFAULT_DETECT_OPTIONS, type DetectOptions } from '../model/thresholds.js';

/**
 * A finding before its evidence is resolved to file:line: detectors name
 * record ids (records.id), in the order a reader should see them.
 */
export interface RawFinding {
  rule: string;
  session: string | null;
  atMs: number;
  message: string;
  evidenceIds: number[];
}

export interface DetectorOutput {
  findings: RawFinding[];
  notKnowable: NotKnowable[];
}


export type { Finding, NotKnowable };
