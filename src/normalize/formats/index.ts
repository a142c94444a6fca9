import { envoy } from './envoy.js';
import { nginx } from './nginx.js';
import { otlp } from './otlp.js';
import type { InputFormat } from './types.js';

/**
 * Adapters tried, in order, when a line is not a spec record. Their detect()
 * rules do not overlap (Envoy says `response_code`, nginx `status`; OTLP has
 * `resourceLogs` or `timeUnixNano`), so the order only matters for mappings
 * a user puts in front of these.
 */
export const INPUT_FORMATS: InputFormat[] = [nginx, envoy, otlp];

export type { InputFormat } from './types.js';
export { loadMapping, loadMappingFile, MappingError } from './mapping.js';
