import { isObject } from './fields.js';

/**
 * Lines that carry the server's own line inside another's: what a log export holds when the server
 * logged to stdout and something else wrote the file.
 *   CRI (containerd, CRI-O: /var/log/pods/…/0.log)   `2026-12-07T10:00:00.123456789Z stdout F {…}`
 *   Docker's json-file driver                         `{"log":"{…}\n","stream":"stdout","time":"…"}`
 *   kubectl logs --timestamps                         `2026-12-07T10:00:00.123456789Z {…}`
 *   kubectl logs --prefix (several pods at once)      `[pod/mcp-7d9f/mcp] {…}`, before the time if both
 *   docker compose logs (several replicas at once)    `mcp-2  | {…}`, before the time if both (--timestamps)
 *   journalctl -o json (a systemd service)            `{"__CURSOR":"…","__REALTIME_TIMESTAMP":"…",…,"MESSAGE":"{…}"}`
 *   logcli query --output=jsonl (Grafana Loki)         `{"labels":{"pod":"mcp-0",…},"line":"{…}","timestamp":"…"}`
 *   aws logs filter-log-events / get-log-events        `{"logStreamName":"ecs/mcp/0a1b","timestamp":1794218400123,"message":"{…}",…}`
 *     (an entry of the AWS CLI's answer, read with --json-array)
 *   a Fluent Bit record (tail input, docker or cri    `{"time":"…","stream":"stdout","logtag":"F","log":"{…}","kubernetes":{"pod_name":…}}`
 *     parser, Merge_Log off), as its outputs write it  (to S3, a file, Elasticsearch, CloudWatch, Loki)
 *   syslog, aws logs tail, a logger's text prefix     `Dec  7 10:00:00 web-1 mcp[812]: {…}`, `<time> <log stream> {…}`
 *   heroku logs, fly logs (the dyno or machine)       `<time> app[web.1]: {…}`, `<time> app[148e2e0b] iad [info]{…}`
 *   AWS Lambda's runtimes (text log format), tab-      `<time>\t<request id>\tINFO\t{…}` (Node.js), `[INFO]\t<time>\t<request id>\t{…}` (Python)
 *     separated, as CloudWatch and `aws logs tail` keep them
 * Read as they are, the first and third are invalid JSON and the others name no record kind: every
 * line rejected or ignored, the whole export unusable.
 */
export interface Envelope {
  /** The server's line. */
  inner: string;
  /** When the runtime, kubectl or journald says the line was written: the record's time where it logs none. */
  time?: string;
  /** The host or pod that wrote it (journald's `_HOSTNAME`, kubectl's pod): the record's node where it names none. */
  node?: string;
  /** One piece of a line the runtime split at its limit (16 KiB by default), not its last. */
  partial: boolean;
  /** Where the runtime may split a line (CRI, Docker's json-file): what pipeline/line-pieces.ts joins. */
  split?: SplitLine;
  /** The whole line again, with another inner line in its place (to store a redacted copy). */
  rewrap(inner: string): string;
}

/** A line as a container runtime writes it, in pieces when it is longer than the runtime's limit. */
export interface SplitLine {
  /** The runtime and stream (stdout, stderr) the piece is of: pieces of two streams interleave, and only one stream's join. */
  stream: string;
  /** The piece's own text, as the application wrote it (no line ending). */
  content: string;
  last: boolean;
  /** The line the runtime would have written had it not split it: this one's envelope around `content`. */
  whole(content: string): string;
}

const POD_PREFIX = /^\[pod\/([^/\]\s]+)\/[^\]\s]*\] /;
/**
 * Compose's container, padded, then `| `. Its name ends in the replica's number (`mcp-2`, v1's `mcp_2`):
 * a logger's `INFO | …` is no container, and its level no node.
 */
const COMPOSE_PREFIX = /^([A-Za-z0-9][\w.-]*[-_]\d+) +\| /;
/** After the time, the platform's process that wrote the line: Heroku's dyno (`app[web.1]:`), Fly's machine (`app[148e2e0b]`). */
const APP_PROCESS = /^app\[([^\]\s]+)\]:? /;
/** A time with its zone, then a space, or a tab as Lambda's runtimes separate their fields. */
const TIME_PREFIX = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d))[ \t]/;
/** CRI: the stream, then tags joined by `:`, of which `P` marks a partial line and `F` a full one. */
const CRI_FIELDS = /^(stdout|stderr) ([A-Z](?::[A-Z])*)(?: |$)/;
const DOCKER_KEYS = new Set(['log', 'stream', 'time', 'attrs']);
const DOCKER_HEAD = '{"log":';
/** journalctl writes the cursor first, then the time; an export trimmed of the cursor starts at the time. */
const JOURNAL_HEADS = ['{"__CURSOR":', '{"__REALTIME_TIMESTAMP":'];
/** logcli writes its keys sorted: the labels (unless --no-labels), the line, the time. */
const LOKI_HEADS = ['{"labels":', '{"line":'];
const LOKI_KEYS = new Set(['labels', 'line', 'timestamp']);
/** An event of CloudWatch Logs as the AWS CLI gives it; get-log-events' have no stream name, and start with the time. */
const CLOUDWATCH_HEAD = '{"logStreamName":';
const CLOUDWATCH_TIMED_HEAD = '{"timestamp":';
const CLOUDWATCH_KEYS = new Set(['logStreamName', 'timestamp', 'message', 'ingestionTime', 'eventId']);
/** The labels that name where a line came from, as Loki's agents set them, most specific first. */
const LOKI_NODE_LABELS = ['pod', 'instance', 'host', 'hostname'];

/** Whether a line may be enveloped: a cheap test before envelopeOf (a line that starts as an object rarely is). */
export function mayBeEnveloped(text: string): boolean {
  return text.charCodeAt(0) !== 123 /* { */ || text.startsWith(DOCKER_HEAD) || startsWithAny(text, JOURNAL_HEADS) || startsWithAny(text, LOKI_HEADS) || isCloudWatchHead(text);
}

/** A logger may write `timestamp` first too: only with CloudWatch's `ingestionTime` is such a line parsed twice. */
function isCloudWatchHead(text: string): boolean {
  return text.startsWith(CLOUDWATCH_HEAD) || (text.startsWith(CLOUDWATCH_TIMED_HEAD) && text.includes('"ingestionTime":'));
}

export function envelopeOf(text: string): Envelope | undefined {
  if (text.startsWith(DOCKER_HEAD)) return dockerLine(text);
  if (startsWithAny(text, JOURNAL_HEADS)) return journalLine(text);
  if (startsWithAny(text, LOKI_HEADS)) return lokiLine(text);
  if (isCloudWatchHead(text)) return cloudWatchEvent(text);
  if (text.charCodeAt(0) === 123) return undefined;
  return prefixedLine(text);
}

function startsWithAny(text: string, heads: readonly string[]): boolean {
  for (const h of heads) if (text.startsWith(h)) return true;
  return false;
}

/**
 * kubectl's pod (or compose's container), a time, CRI's stream and tag (or a platform's process), each where it is; then any other text up to a JSON
 * object, which a writer put before the server's line (syslog's `host app[pid]:`, `aws logs tail`'s
 * log stream, a logger's level): the object is the line. Only a time with its zone is taken for the
 * record's; the rest of the prefix says nothing the analyzer reads.
 */
function prefixedLine(text: string): Envelope | undefined {
  let rest = text;
  const pod = POD_PREFIX.exec(rest) ?? COMPOSE_PREFIX.exec(rest);
  if (pod !== null) rest = rest.slice(pod[0].length);
  const time = TIME_PREFIX.exec(rest);
  if (time !== null) rest = rest.slice(time[0].length);
  let split: SplitLine | undefined;
  const cri = time !== null ? CRI_FIELDS.exec(rest) : null;
  if (cri !== null) {
    const stream = cri[1]!;
    const head = text.slice(0, text.length - rest.length);
    rest = rest.slice(cri[0].length);
    split = { stream: `cri ${stream}`, content: rest, last: !cri[2]!.split(':').includes('P'), whole: (content) => `${head}${stream} F ${content}` };
  }
  const app = time !== null && cri === null ? APP_PROCESS.exec(rest) : null;
  if (!rest.startsWith('{')) {
    const object = objectAfterText(rest);
    if (object >= 0) rest = rest.slice(object + 1);
    // Text before an object, and nothing else: is it the whole line as JSON (an array, a number), or no envelope at all?
    else if (pod === null && time === null) return undefined;
  }
  if (pod === null && time === null && (rest === text || isJson(text))) return undefined;
  const head = text.slice(0, text.length - rest.length);
  return {
    inner: rest,
    ...(time !== null && { time: time[1]! }),
    ...((pod ?? app) !== null && { node: (pod ?? app)![1]! }),
    partial: split?.last === false,
    ...(split && { split }),
    rewrap: (inner) => head + inner,
  };
}

/** Where the first JSON object after a space, a tab or a bracketed word (Fly's `[info]{…}`) begins, less one; -1 where none does. */
function objectAfterText(text: string): number {
  let first = -1;
  for (const after of [' {"', '\t{"', ']{"']) {
    const at = text.indexOf(after);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  return first;
}

/**
 * The line's place in a split, if it is a runtime's line that may be a piece (pipeline/line-pieces.ts
 * joins them). With `firstPiece` (no line waits for its last piece), only a piece that begins one is:
 * two cheap tests keep a file of whole lines from being read twice.
 */
export function splitOf(text: string, firstPiece: boolean): SplitLine | undefined {
  const c = text.charCodeAt(0);
  if (c === 123 /* { */) {
    if (!text.startsWith(DOCKER_HEAD) || (firstPiece && endsItsLog(text))) return undefined;
  } else if (c < 48 || c > 57) return undefined; // a CRI line starts with its time
  else if (firstPiece && !tagsPartial(text)) return undefined;
  return envelopeOf(text)?.split;
}

/** Docker writes `log`, then `stream` (scanned for from the end): a log ending in its newline is a whole line. */
function endsItsLog(text: string): boolean {
  const at = text.lastIndexOf('\\n","stream":"');
  // `\\n` before the quote is a backslash and an `n`, no newline.
  return at > 0 && text[at - 1] !== '\\';
}

/** `<time> stdout P …`: the stream after the first space, then its tags, of which P (partial) is the only one a first piece has. */
function tagsPartial(text: string): boolean {
  const at = text.indexOf(' ') + 8;
  const next = text.charCodeAt(at + 1);
  return text.charCodeAt(at) === 80 /* P */ && text.charCodeAt(at - 1) === 32 && (next === 32 || next === 58 /* : */ || at + 1 === text.length);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The text as a JSON object, if it is one (pipeline/line-pieces.ts asks it of a line cut short). */
export function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const obj: unknown = JSON.parse(text);
    return isObject(obj) ? obj : undefined;
  } catch {
    return undefined;
  }
}

function dockerLine(text: string): Envelope | undefined {
  const o = parsedObject(text);
  if (o === undefined || typeof o.log !== 'string' || typeof o.time !== 'string' || (o.stream !== 'stdout' && o.stream !== 'stderr')) return undefined;
  if (!Object.keys(o).every((k) => DOCKER_KEYS.has(k))) return undefined;
  const log = o.log;
  const ending = lineEnding(log);
  const inner = log.slice(0, log.length - ending.length);
  return {
    inner,
    time: o.time,
    // json-file ends each full line with its newline; a piece of a longer one has none.
    partial: ending === '',
    split: { stream: `docker ${o.stream}`, content: inner, last: ending !== '', whole: (content) => JSON.stringify({ ...o, log: `${content}\n` }) },
    rewrap: (inner) => JSON.stringify({ ...o, log: inner + ending }),
  };
}

/** journald keeps a message that is not valid UTF-8 as an array of bytes; `null` where it dropped one too large. */
function journalLine(text: string): Envelope | undefined {
  const o = parsedObject(text);
  if (o === undefined || typeof o.__REALTIME_TIMESTAMP !== 'string' || !/^\d+$/.test(o.__REALTIME_TIMESTAMP)) return undefined;
  const message = o.MESSAGE;
  const inner = typeof message === 'string' ? message : Array.isArray(message) ? Buffer.from(message as number[]).toString('utf8') : undefined;
  if (inner === undefined) return undefined;
  const host = nonEmpty(o._HOSTNAME);
  return {
    inner,
    time: microsecondsToIso(o.__REALTIME_TIMESTAMP),
    ...(host !== undefined && { node: host }),
    partial: false,
    rewrap: (redacted) => JSON.stringify({ ...o, MESSAGE: redacted }),
  };
}

/** `logcli query --output=jsonl` (Grafana Loki): the line as a string, its time, and the stream's labels. */
function lokiLine(text: string): Envelope | undefined {
  const o = parsedObject(text);
  if (o === undefined || typeof o.line !== 'string' || typeof o.timestamp !== 'string') return undefined;
  if (!Object.keys(o).every((k) => LOKI_KEYS.has(k))) return undefined;
  const labels = isObject(o.labels) ? o.labels : {};
  const node = LOKI_NODE_LABELS.map((k) => nonEmpty(labels[k])).find((v) => v !== undefined);
  return {
    inner: o.line,
    time: o.timestamp,
    ...(node !== undefined && { node }),
    partial: false,
    rewrap: (inner) => JSON.stringify({ ...o, line: inner }),
  };
}

/** A CloudWatch Logs event: the line as `message` (with the newline the agent kept), its time in ms, its log stream (a task, an instance). */
function cloudWatchEvent(text: string): Envelope | undefined {
  const o = parsedObject(text);
  if (o === undefined || typeof o.message !== 'string' || typeof o.timestamp !== 'number' || !Number.isFinite(o.timestamp)) return undefined;
  if (!Object.keys(o).every((k) => CLOUDWATCH_KEYS.has(k))) return undefined;
  const time = new Date(o.timestamp);
  if (Number.isNaN(time.getTime())) return undefined;
  const message = o.message;
  const ending = lineEnding(message);
  const stream = nonEmpty(o.logStreamName);
  return {
    inner: message.slice(0, message.length - ending.length),
    time: time.toISOString(),
    ...(stream !== undefined && { node: stream }),
    partial: false,
    rewrap: (inner) => JSON.stringify({ ...o, message: inner + ending }),
  };
}

/**
 * A record Fluent Bit made of a container's line, with the line as `log` (its `Merge_Log` off): it
 * names the stream, the CRI tag or the pod it came from. Told from a parsed object (the caller
 * parsed it, and only an object naming no record kind asks), so no line is parsed twice for it.
 */
export function fluentBitRecord(o: Record<string, unknown>): Envelope | undefined {
  if (typeof o.log !== 'string') return undefined;
  const k8s = typeof o.kubernetes === 'object' && o.kubernetes !== null ? (o.kubernetes as Record<string, unknown>) : undefined;
  if (k8s === undefined && o.stream !== 'stdout' && o.stream !== 'stderr' && typeof o.logtag !== 'string') return undefined;
  const log = o.log;
  const ending = lineEnding(log);
  const time = typeof o.time === 'string' ? o.time : typeof o['@timestamp'] === 'string' ? o['@timestamp'] : undefined;
  const pod = nonEmpty(k8s?.pod_name);
  return {
    inner: log.slice(0, log.length - ending.length),
    ...(time !== undefined && { time }),
    ...(pod !== undefined && { node: pod }),
    partial: o.logtag === 'P',
    rewrap: (inner) => JSON.stringify({ ...o, log: inner + ending }),
  };
}

/**
 * A line a log shipper or another logger carried as a string in a document of its own, told from the
 * parsed object (as a Fluent Bit record is, and only of an object that is no record):
 *   Filebeat, Elastic Agent, Logstash (ECS)   `{"@timestamp":"…","message":"{…}","host":{"name":"web-1"},"log":{…},…}`
 *   an Elasticsearch hit (elasticdump)        `{"_index":"filebeat-…","_id":"…","_source":{"message":"{…}",…}}`
 *   Vector's file or console sink             `{"message":"{…}","timestamp":"…","host":"web-1","source_type":"file"}`
 *   a logger's message (winston's JSON)       `{"level":"info","message":"{…}","timestamp":"…"}`
 *   Splunk's export (search/jobs/export)      `{"preview":false,"offset":0,"result":{"_raw":"{…}","_time":"…","host":"web-1"}}`
 *   CloudWatch Logs Insights' results         `{"@timestamp":"…","@message":"{…}","@logStream":"ecs/mcp/0a1b"}`
 *   a Datadog log event (logs search API)     `{"id":"…","type":"log","attributes":{"timestamp":"…","host":"web-1","attributes":{…}}}`
 *   a Cloud Logging entry of a text line      `{"textPayload":"INFO {…}","resource":{"labels":{"pod_name":…}},"timestamp":"…"}`
 *   an Azure Monitor row (AKS Container        `{"TimeGenerated":"…","PodName":"mcp-0","LogMessage":{…} or "{…}",…}` (ContainerLogV2),
 *     insights, az monitor log-analytics query) `{"TimeGenerated":"…","LogEntry":"{…}",…}` (ContainerLog, whose Computer is no pod: no node)
 * and a row of a console's CSV download (read/csv-rows.ts) as the object of its cells. `_raw`,
 * `@message`, `textPayload` and `LogEntry` are the line as written, whatever it starts with. A `message` is often a
 * sentence of the logger's own ("request failed: {…}"): it is a line only where it starts as one does,
 * with an object, a time (a runtime's prefix) or a bracket (kubectl's pod, a level).
 */
export function shippedLine(o: Record<string, unknown>): Envelope | undefined {
  const { doc, at } = documentOf(o);
  const carried = (at === 'attributes' ? parsedByDatadog(doc) : undefined) ?? carriedText(doc);
  if (carried === undefined) return undefined;
  const { key, line, parsed } = carried;
  const ending = lineEnding(line);
  const time = [doc['@timestamp'], doc.timestamp, doc._time, doc.time, doc.TimeGenerated].find((v): v is string => typeof v === 'string');
  const node = shipperNode(doc);
  return {
    inner: line.slice(0, line.length - ending.length),
    ...(time !== undefined && { time }),
    ...(node !== undefined && { node }),
    partial: false,
    rewrap: (inner) => {
      // A line the store kept parsed (Azure's LogMessage) goes back as the object it was.
      const kept = { ...doc, [key]: parsed ? (parsedObject(inner) ?? inner) : inner + ending };
      return JSON.stringify(at === undefined ? kept : { ...o, [at]: kept });
    },
  };
}

/**
 * The shipper's document inside what the export holds, and where: an Elasticsearch hit's `_source`, a
 * Splunk export row's `result`, a Datadog log event's `attributes` (`{"id":…,"type":"log","attributes":{…}}`
 * as its logs search API answers, read with --json-array); else the object itself.
 */
function documentOf(o: Record<string, unknown>): { doc: Record<string, unknown>; at?: '_source' | 'result' | 'attributes' } {
  if (isObject(o._source)) return { doc: o._source, at: '_source' };
  if (isObject(o.result) && typeof o.result._raw === 'string') return { doc: o.result, at: 'result' };
  if (o.type === 'log' && isObject(o.attributes) && isObject(o.attributes.attributes)) return { doc: o.attributes, at: 'attributes' };
  return { doc: o };
}

/** The line a document carries, under which key, and whether the store kept it parsed (to put it back so). */
interface CarriedText {
  key: string;
  line: string;
  parsed: boolean;
}

/**
 * Datadog parses a JSON line into the event's own `attributes` (its `message` then being a reserved
 * attribute, not the line): the record is that object, where it holds anything. Datadog moves the
 * line's `msg` (or `message`, or `log`) out to the event's `message`: a pino record that names its kind
 * only in `msg` gets it back, where the parsed line names no kind of its own.
 */
function parsedByDatadog(doc: Record<string, unknown>): CarriedText | undefined {
  const fields = doc.attributes as Record<string, unknown>;
  if (Object.keys(fields).length === 0) return undefined;
  const hoisted = fields.kind === undefined && fields.msg === undefined && typeof doc.message === 'string';
  return { key: 'attributes', line: JSON.stringify(hoisted ? { ...fields, msg: doc.message } : fields), parsed: true };
}

/**
 * Where the document holds the line, the first of: Splunk's `_raw`, CloudWatch Logs Insights' `@message`,
 * Cloud Logging's `textPayload`, Azure
 * Monitor's `LogEntry` (ContainerLog) or `LogMessage` (ContainerLogV2, which keeps a JSON line parsed),
 * a `message` that starts as a line does.
 */
function carriedText(doc: Record<string, unknown>): CarriedText | undefined {
  for (const key of ['_raw', '@message', 'textPayload', 'LogEntry']) {
    const v = doc[key];
    if (typeof v === 'string') return { key, line: v, parsed: false };
  }
  const m = doc.LogMessage;
  if (typeof m === 'string') return { key: 'LogMessage', line: m, parsed: false };
  if (isObject(m)) return { key: 'LogMessage', line: JSON.stringify(m), parsed: true };
  if (typeof doc.message === 'string' && startsAsALine(doc.message)) return { key: 'message', line: doc.message, parsed: false };
  return undefined;
}

function startsAsALine(message: string): boolean {
  const c = message.trimStart().charCodeAt(0);
  return c === 123 /* { */ || c === 91 /* [ */ || (c >= 48 && c <= 57);
}

/**
 * The pod (ECS's `kubernetes.pod.name`, as Fluent Bit or Azure Monitor name it), a Cloud Logging entry's
 * resource, CloudWatch Logs Insights' log stream, or the host a shipper names; a CSV download's
 * column names the nested ones flat (`host.name`).
 */
function shipperNode(doc: Record<string, unknown>): string | undefined {
  const k8s = isObject(doc.kubernetes) ? doc.kubernetes : {};
  const host = isObject(doc.host) ? doc.host : {};
  return (
    nonEmpty(isObject(k8s.pod) ? k8s.pod.name : undefined) ??
    nonEmpty(doc['kubernetes.pod.name']) ??
    nonEmpty(k8s.pod_name) ??
    nonEmpty(doc.PodName) ??
    cloudResourceNode(doc) ??
    nonEmpty(doc['@logStream']) ??
    nonEmpty(host.name) ??
    nonEmpty(doc['host.name']) ??
    nonEmpty(host.hostname) ??
    nonEmpty(doc.host) ??
    nonEmpty(doc.hostname)
  );
}

/**
 * The pod, VM or container instance a Google Cloud Logging entry says wrote it: `resource.labels.pod_name`
 * of a `k8s_container`, `instance_id` of a `gce_instance`, or the entry's own `labels.instanceId` on
 * Cloud Run (whose resource names only the revision, which all its instances share). The record is
 * under `jsonPayload` (a wrapper, read where it is); this is only the node where the record names
 * none, as an envelope's is.
 */
export function cloudLoggingNode(o: Record<string, unknown>): string | undefined {
  return typeof o.jsonPayload === 'object' ? cloudResourceNode(o) : undefined;
}

function cloudResourceNode(o: Record<string, unknown>): string | undefined {
  if (!isObject(o.resource)) return undefined;
  const resource = isObject(o.resource.labels) ? o.resource.labels : {};
  const entry = isObject(o.labels) ? o.labels : {};
  return nonEmpty(resource.pod_name) ?? nonEmpty(resource.instance_id) ?? nonEmpty(entry.instanceId);
}

/** The newline a shipper kept at the end of a line (json-file, CloudWatch, Fluent Bit): taken off the line, put back around a redacted one. */
function lineEnding(line: string): '' | '\n' | '\r\n' {
  return line.endsWith('\r\n') ? '\r\n' : line.endsWith('\n') ? '\n' : '';
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** `1794225600123456` (µs since the epoch) → `2026-11-09T12:00:00.123456Z`: the digits below the millisecond kept. */
function microsecondsToIso(us: string): string {
  const ms = Number(us.slice(0, -3) || '0');
  return `${new Date(ms).toISOString().slice(0, -1)}${us.slice(-3).padStart(3, '0')}Z`;
}

/** A piece read on its own: pipeline/line-pieces.ts joins a file's pieces before their line is read, so only a caller that reads lines one by one sees this. */
export const PARTIAL_LINE = 'a piece of a longer line, split by the container runtime at its limit (16 KiB by default), read without its other pieces';
