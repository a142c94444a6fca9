import { replayInStatelessEra } from './protocol-revisions/replay-in-stateless-era.js';
import { sessionInStatelessEra } from './protocol-revisions/session-in-stateless-era.js';
import type { Detector } from './types.js';

// Protocol revisions (rules.md): judged only where a version is logged.
export const protocolRevisions: Detector = {
  rules: ['session-in-stateless-era', 'replay-in-stateless-era'],
  run(db, opts) {
    return { findings: [...sessionInStatelessEra(db, opts), ...replayInStatelessEra(db, opts)], notKnowable: [] };
  },
};
