import { describeConformance } from './support/spec.js';

// The official MCP conformance suite (0.1.16 and 0.2.0-alpha.12) as real
// traffic against an instrumented sdk-1.32.2 server, plus raw GET probes; every log
// analyzed (support/spec.ts says what must hold).
describeConformance('sdk-1.32.2');
