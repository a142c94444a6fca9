import { existsSync, readFileSync } from 'node:fs';
import type { ResumptionRecord } from '../../../src/instrument/index.js';
import { waitFor } from './wait.js';

export function readLog(file: string): ResumptionRecord[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ResumptionRecord);
}

/** Waits until the log file holds a record matching `match` and returns it. */
export function waitForRecord(file: string, what: string, match: (r: ResumptionRecord) => boolean, timeoutMs = 3000): Promise<ResumptionRecord> {
  return waitFor(what, () => readLog(file).find(match), timeoutMs);
}
