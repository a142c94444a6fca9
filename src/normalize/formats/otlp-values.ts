import { isObject, type Json } from '../fields.js';

// OTLP/JSON values (opentelemetry-proto, common.proto AnyValue and KeyValue)
// as plain JSON. Field names are lowerCamelCase in OTLP/JSON; protobuf's JSON
// mapping also accepts the original snake_case, which some encoders write.

/** `obj.fooBar`, else `obj.foo_bar`. */
export function field(obj: Json, camel: string): unknown {
  if (camel in obj) return obj[camel];
  const snake = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return obj[snake];
}

/**
 * An AnyValue as a JS value. int64 is a string in OTLP/JSON: it becomes a
 * number when it fits exactly, else stays a string (ids are opaque anyway).
 */
export function anyValue(v: unknown): unknown {
  if (!isObject(v)) return undefined;
  const s = field(v, 'stringValue');
  if (s !== undefined) return typeof s === 'string' ? s : undefined;
  const b = field(v, 'boolValue');
  if (b !== undefined) return typeof b === 'boolean' ? b : undefined;
  const i = field(v, 'intValue');
  if (i !== undefined) return intValue(i);
  const d = field(v, 'doubleValue');
  if (d !== undefined) return typeof d === 'number' ? d : typeof d === 'string' && d !== '' && Number.isFinite(Number(d)) ? Number(d) : undefined;
  const arr = field(v, 'arrayValue');
  if (arr !== undefined) {
    const values = isObject(arr) ? field(arr, 'values') : undefined;
    return Array.isArray(values) ? values.map(anyValue) : [];
  }
  const kv = field(v, 'kvlistValue');
  if (kv !== undefined) return keyValues(isObject(kv) ? field(kv, 'values') : undefined);
  const bytes = field(v, 'bytesValue');
  if (typeof bytes === 'string') return bytes;
  return undefined;
}

function intValue(i: unknown): number | string | undefined {
  if (typeof i === 'number') return Number.isFinite(i) ? i : undefined;
  if (typeof i !== 'string' || !/^-?\d+$/.test(i)) return undefined;
  const n = Number(i);
  return Number.isSafeInteger(n) ? n : i;
}

/** A KeyValue list (`attributes`, `kvlistValue.values`) as an object; keys kept as written (`mcp.session.id`). */
export function keyValues(list: unknown): Json {
  const out: Json = {};
  if (!Array.isArray(list)) return out;
  for (const kv of list) {
    if (!isObject(kv) || typeof kv.key !== 'string') continue;
    const v = anyValue(kv.value);
    if (v !== undefined) out[kv.key] = v;
  }
  return out;
}

/** A `*UnixNano` timestamp (a string of digits, or a number) in epoch ms; 0 means unknown in OTLP. */
export function nanosToMs(v: unknown): number | undefined {
  if (typeof v === 'string' && /^\d+$/.test(v)) {
    const ms = Number(BigInt(v) / 1_000_000n);
    return ms > 0 ? ms : undefined;
  }
  if (typeof v === 'number' && Number.isFinite(v) && v > 0) return Math.floor(v / 1e6);
  return undefined;
}
