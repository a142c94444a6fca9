import type { Json } from '../fields.js';

/**
 * An input shape other than the spec's own records (nginx or Envoy access
 * logs, OTLP JSON, a user mapping): it recognizes its lines and rewrites them
 * into spec-shaped objects, which then go through the one spec normalizer.
 */
export interface InputFormat {
  name: string;
  /** Whether this JSON object looks like one line of this format. */
  detect(obj: Json): boolean;
  /** Spec-shaped objects (log-format.md); empty when the line carries nothing of ours. */
  toSpec(obj: Json): Json[];
}
