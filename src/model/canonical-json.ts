// One text for one value, whatever order its keys were written in: a tool call's arguments hashed by the
// instrumentation (instrument/jsonrpc.ts), the options that key a --db file's findings cache
// (detect/report-cache.ts).

/**
 * JSON with object keys sorted at every depth, so equal arguments hash equally. A loop over a stack of
 * what is left to write, not a call per level: a request's arguments are the client's, and a 40 KB body
 * nested 20,000 deep (which JSON.parse takes) overflowed the call stack and took the server down.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const todo: unknown[] = [value];
  while (todo.length > 0) {
    const item = todo.pop();
    if (item instanceof Written) {
      out.push(item.text);
    } else if (Array.isArray(item)) {
      todo.push(CLOSE_ARRAY);
      for (let i = item.length - 1; i >= 0; i--) todo.push(item[i], ...(i > 0 ? [COMMA] : []));
      todo.push(OPEN_ARRAY);
    } else if (isObject(item)) {
      const keys = Object.keys(item)
        .filter((k) => item[k] !== undefined)
        .sort();
      todo.push(CLOSE_OBJECT);
      for (let i = keys.length - 1; i >= 0; i--) todo.push(item[keys[i]!], new Written(`${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:`));
      todo.push(OPEN_OBJECT);
    } else {
      out.push(JSON.stringify(item) ?? 'null');
    }
  }
  return out.join('');
}

/** Text canonicalJson writes as it is (a bracket, a comma, a key), told apart from a value still to write. */
class Written {
  constructor(readonly text: string) {}
}
const OPEN_ARRAY = new Written('[');
const CLOSE_ARRAY = new Written(']');
const OPEN_OBJECT = new Written('{');
const CLOSE_OBJECT = new Written('}');
const COMMA = new Written(',');

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
