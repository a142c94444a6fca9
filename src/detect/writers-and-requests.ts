import type { Detector } from './types.js';

// Being written: see the detector family brief. Judges no rule yet.
export const writersAndRequests: Detector = { rules: [], run: () => ({ findings: [], notKnowable: [] }) };
