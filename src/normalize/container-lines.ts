/**
 * Lines as container runtimes and kubectl write them, around the application's own line. A server in
 * a container logs to stdout; the export an on-call engineer gets is what the runtime wrote:
 *   CRI (containerd, CRI-O: /var/log/pods/…/0.log)   `2026-12-07T10:00:00.123456789Z stdout F {…}`
 *   Docker's json-file driver                         `{"log":"{…}\n","stream":"stdout","time":"…"}`
 *   kubectl logs --timestamps                         `2026-12-07T10:00:00.123456789Z {…}`
 *   kubectl logs --prefix (several pods at once)      `[pod/mcp-7d9f/mcp] {…}`, before the time if both
 * Read as they are, the first and third are invalid JSON and the second names no record kind:
 * every line rejected or ignored, the whole export unusable.
 */
export interface ContainerLine {
  /** The application's line. */
  inner: string;
  /** When the runtime or kubectl says the line was written: the record's time where it logs none. */
  time?: string;
  /** The pod kubectl's --prefix names: the record's node where it names none. */
  pod?: string;
  /** One piece of a line the runtime split at its limit (16 KiB by default). */
  partial: boolean;
  /** The whole line again, with another application line in its place (to store a redacted copy). */
  rewrap(inner: string): string;
}

const POD_PREFIX = /^\[pod\/([^/\]\s]+)\/[^\]\s]*\] /;
const TIME_PREFIX = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) /;
/** CRI: the stream, then tags joined by `:`, of which `P` marks a partial line and `F` a full one. */
const CRI_FIELDS = /^(?:stdout|stderr) ([A-Z](?::[A-Z])*)(?: |$)/;
const DOCKER_KEYS = new Set(['log', 'stream', 'time', 'attrs']);

/** Whether a line may be a container runtime's: a cheap test before containerLine. */
export function mayBeContainerLine(text: string): boolean {
  const c = text.charCodeAt(0);
  return (c >= 48 && c <= 57) || c === 91 /* [ */ || text.startsWith('{"log":');
}

export function containerLine(text: string): ContainerLine | undefined {
  return text.startsWith('{"log":') ? dockerLine(text) : prefixedLine(text);
}

function prefixedLine(text: string): ContainerLine | undefined {
  let rest = text;
  const pod = POD_PREFIX.exec(rest);
  if (pod !== null) rest = rest.slice(pod[0].length);
  const time = TIME_PREFIX.exec(rest);
  if (time !== null) rest = rest.slice(time[0].length);
  if (pod === null && time === null) return undefined;
  let partial = false;
  const cri = time !== null ? CRI_FIELDS.exec(rest) : null;
  if (cri !== null) {
    partial = cri[1]!.split(':').includes('P');
    rest = rest.slice(cri[0].length);
  }
  const head = text.slice(0, text.length - rest.length);
  return {
    inner: rest,
    ...(time !== null && { time: time[1]! }),
    ...(pod !== null && { pod: pod[1]! }),
    partial,
    rewrap: (inner) => head + inner,
  };
}

function dockerLine(text: string): ContainerLine | undefined {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return undefined;
  const o = obj as Record<string, unknown>;
  if (typeof o.log !== 'string' || typeof o.time !== 'string' || (o.stream !== 'stdout' && o.stream !== 'stderr')) return undefined;
  if (!Object.keys(o).every((k) => DOCKER_KEYS.has(k))) return undefined;
  const log = o.log;
  const ending = log.endsWith('\r\n') ? '\r\n' : log.endsWith('\n') ? '\n' : '';
  return {
    inner: log.slice(0, log.length - ending.length),
    time: o.time,
    // json-file ends each full line with its newline; a piece of a longer one has none.
    partial: ending === '',
    rewrap: (inner) => JSON.stringify({ ...o, log: inner + ending }),
  };
}

export const PARTIAL_LINE =
  'a piece of a longer line, split by the container runtime at its limit (16 KiB by default): pieces are not joined, each line is read on its own';
