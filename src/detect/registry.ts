import { engineDivergence } from './engine-divergence.js';
import { httpEdge } from './http-edge.js';
import { protocolRevisions } from './protocol-revisions.js';
import { replayIntegrity } from './replay-integrity.js';
import { sessionContinuity } from './session-continuity.js';
import { streamVsSession } from './stream-vs-session.js';
import strandedResponse from './rules/stranded-response.js'; // until the rule-module index lands
import type { Detector } from './types.js';
import { writersAndRequests } from './writers-and-requests.js';

// until the rule-module index lands: a rule module run as a detector of its own
const strandedResponseDetector: Detector = {
  rules: [strandedResponse.id],
  run: (db, opts) => strandedResponse.detect({ db, opts, shared: (f) => f(db, opts) }),
};

/** Every detector family, in catalogue order (docs/rules.md). */
export const DETECTORS: Detector[] = [
  replayIntegrity,
  sessionContinuity,
  streamVsSession,
  writersAndRequests,
  strandedResponseDetector, // until the rule-module index lands
  httpEdge,
  protocolRevisions,
  engineDivergence,
];
