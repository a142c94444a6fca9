import type { InputFormat } from './types.js';

/** Adapters tried, in order, when a line is not a spec record. */
export const INPUT_FORMATS: InputFormat[] = [];

export type { InputFormat } from './types.js';
