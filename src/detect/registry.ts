import { engineDivergence } from './engine-divergence.js';
import { httpEdge } from './http-edge.js';
import { protocolRevisions } from './protocol-revisions.js';
import { replayIntegrity } from './replay-integrity.js';
import { sessionContinuity } from './session-continuity.js';
import { streamVsSession } from './stream-vs-session.js';
import type { Detector } from './types.js';
import { writersAndRequests } from './writers-and-requests.js';

/** Every detector family, in catalogue order (docs/rules.md). */
export const DETECTORS: Detector[] = [replayIntegrity, sessionContinuity, streamVsSession, writersAndRequests, httpEdge, protocolRevisions, engineDivergence];
