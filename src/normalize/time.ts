const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/** Epoch numbers below this are taken as seconds (Python's time.time()), above as milliseconds. */
const SECONDS_LIMIT = 1e11;

/** Parses `ts` as RFC 3339 or epoch milliseconds; undefined when it is neither. */
export function parseTime(v: unknown): number | undefined {
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v < 0) return undefined;
    return Math.round(v < SECONDS_LIMIT ? v * 1000 : v);
  }
  if (typeof v === 'string') {
    if (/^\d+(\.\d+)?$/.test(v)) return parseTime(Number(v));
    const m = RFC3339.exec(v);
    if (!m) return undefined;
    // Without a zone, Date.parse reads local time: the same log would give
    // another timeline on another machine. A log without a zone is read as UTC.
    const ms = Date.parse(v.replace(' ', 'T') + (m[3] === undefined ? 'Z' : ''));
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
