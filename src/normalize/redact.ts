// Credentials never leave ingest: a line is redacted before anything is
// stored, so the raw line quoted as evidence, the stored headers, a rejected
// line's text and every report built from them hold a marker instead of the
// value. Redaction is by name (a header or field whose name says credential,
// at any depth) and by shape (`Bearer …`, `Basic …`, a JWT, a password in a URL,
// GitHub, OpenAI, Stripe, Slack and AWS key shapes; `?key=` and `?code=` in a URL),
// so a credential under a name nobody listed still does not leak. Only the ids
// resumption is read from (session, event and stream ids) are never redacted by shape.

export const REDACTED = '[redacted]';

/**
 * One cheap test on the raw line before any walk: every credential name and
 * shape below contains one of these. Most lines match none and cost one regex.
 * A name spelled with JSON escapes of ASCII (`\u0074oken`) is examined too: the
 * walk sees the decoded name.
 */
const HINT =
  /auth|cookie|token|passw|pwd|secret|api[-_.\s]?key|apikey|access[-_.]?key|private[-_.]?key|privatekey|subscription[-_.]?key|signing[-_.]?key|credential|bearer|basic\s|jwt|eyJ|passphrase|signature|\bsig\b|assertion|\\u00[2-7]|[?&](?:key|code)=/i;
/** The key shapes, in their own case (a second, case-sensitive test is cheaper than one more case-blind alternative). */
const SHAPE_HINT = /gh[pousr]_|github_pat_|xox[abposr]-|\bsk[-_]|A[KS]IA[0-9A-Z]{16}/;
const URL_USERINFO = /:\/\/[^\s/@]*:[^\s/@]*@/;

export function mayHoldCredential(text: string): boolean {
  return HINT.test(text) || SHAPE_HINT.test(text) || (text.includes('://') && URL_USERINFO.test(text));
}

/**
 * A name's last credential word says what its value is, unless a word after it says the value is
 * something else: `x-auth-token`, `auth_header`, `tokenValue`, `token2`, `session_secret_b64` hold
 * one; `token_fp` is a fingerprint, `session_token_count` a number.
 */
const CREDENTIAL_WORDS: ReadonlySet<string> = new Set([
  'token', 'password', 'passwd', 'pwd', 'secret', 'apikey', 'authorization', 'auth', 'cookie', 'cookies',
  'credential', 'credentials', 'jwt', 'bearer', 'passphrase', 'privatekey', 'secretkey', 'accesskey',
  // a presigned URL's or a shared access signature's: it grants access as a key does (X-Amz-Signature,
  // X-Goog-Signature, Azure SAS `sig`)
  'signature', 'sig',
]);
/** Words after a credential word that still name its value, not something about it. */
const VALUE_WORDS: ReadonlySet<string> = new Set([
  'value', 'val', 'header', 'headers', 'hdr', 'raw', 'b64', 'base64', 'hex', 'enc', 'encoded', 'plain', 'plaintext', 'string', 'str', 'text', 'data', 'bytes',
]);
const CREDENTIAL_PAIRS: ReadonlySet<string> = new Set([
  'api key', 'private key', 'secret key', 'access key', 'signing key', 'subscription key', 'auth key', 'client secret',
  // OAuth's private_key_jwt and SAML: a signed assertion is a bearer credential
  'client assertion', 'saml assertion',
]);
/**
 * MCP's own names that end in a credential word and name no credential. A progress token is the id a
 * client picks to match progress notifications to its request (`params.progressToken`,
 * `_meta.progressToken`): redacting it hid nothing, and made every progress line of a server that logs
 * its messages a redacted copy stored in full, where an untouched line is stored as its place in the file.
 */
const PROTOCOL_PAIRS: ReadonlySet<string> = new Set(['progress token']);

const nameCache = new Map<string, boolean>();

/**
 * Whether a header or field name says its value is a credential, in any case
 * and separator: `Authorization`, `set-cookie`, `x-api-key`, `http_cookie`,
 * `accessToken`, `client_secret`, `http.request.header.authorization`. Ids are
 * not credentials: `mcp-session-id`, `last-event-id`, `token_fp`, `progressToken` stay.
 */
export function isCredentialName(name: string): boolean {
  const hit = nameCache.get(name);
  if (hit !== undefined) return hit;
  const words = wordsOf(name);
  let end = words.length;
  while (end > 1 && (VALUE_WORDS.has(words[end - 1]!) || /^\d+$/.test(words[end - 1]!))) end--;
  let yes = false;
  for (let n = words.length; n >= end && !yes; n--) {
    // `token2`: a credential word numbered is one
    const last = words[n - 1]?.replace(/(\D)\d+$/, '$1');
    const pair = n >= 2 ? `${words[n - 2]} ${last}` : '';
    yes = last !== undefined && (CREDENTIAL_WORDS.has(last) || CREDENTIAL_PAIRS.has(pair)) && !PROTOCOL_PAIRS.has(pair);
  }
  if (nameCache.size > 10_000) nameCache.clear();
  nameCache.set(name, yes);
  return yes;
}

function wordsOf(name: string): string[] {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter((w) => w !== '');
}

const idCache = new Map<string, boolean>();

/**
 * The ids resumption is read from: `session`, `mcp-session-id`, `Mcp-Session-Id`, `session_id`,
 * `event_id`, `Last-Event-ID`, `stream`, `stream_id`. Their values are data the analyzer needs,
 * whatever they look like (a session id may be a JWT, the spec says): no shape redacts them.
 */
function isResumptionIdName(name: string): boolean {
  const hit = idCache.get(name);
  if (hit !== undefined) return hit;
  const w = wordsOf(name);
  const last = w[w.length - 1];
  const yes = last === 'session' || last === 'stream' || (last === 'id' && ['session', 'event', 'stream'].includes(w[w.length - 2] ?? ''));
  if (idCache.size > 10_000) idCache.clear();
  idCache.set(name, yes);
  return yes;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * How deep a line's JSON is walked. A hostile line nests thousands of levels (JSON.parse takes it;
 * JSON.stringify and a recursive walk overflow the stack near 5,000): deeper than this the line is
 * not redacted as JSON, and its reader rejects it (redacted as text) instead of losing the file.
 */
const MAX_REDACT_DEPTH = 1000;
export class TooDeeplyNested extends Error {
  constructor() {
    super(`JSON nested deeper than ${MAX_REDACT_DEPTH.toLocaleString('en-US')} levels: not read (too deep to redact as JSON)`);
  }
}

/** Every scalar under a credential name becomes the marker; structure (keys, lists) stays readable. */
function redactAll(v: unknown, depth: number): unknown {
  if (typeof v === 'string' || typeof v === 'number') return REDACTED;
  if (depth > MAX_REDACT_DEPTH) throw new TooDeeplyNested();
  if (Array.isArray(v)) return v.map((x) => redactAll(x, depth + 1));
  if (isObject(v)) {
    const out: Json = {};
    for (const k of Object.keys(v)) out[k] = redactAll(v[k], depth + 1);
    return out;
  }
  return v; // null and booleans say nothing secret
}

/**
 * Redacts a parsed line in place; true when anything changed. Handles plain
 * objects at any depth (headers objects, wrappers), OTLP and HAR name/value
 * pairs (`{"key":"authorization","value":…}`), header lists of pairs, and
 * strings that hold JSON or header text. Throws TooDeeplyNested past MAX_REDACT_DEPTH
 * (counted through JSON inside strings too).
 */
export function redactInPlace(node: unknown, depth = 0): boolean {
  if (depth > MAX_REDACT_DEPTH) throw new TooDeeplyNested();
  let changed = false;
  if (Array.isArray(node)) {
    // [["authorization", "Bearer …"], …]: a header list of pairs.
    if (node.length === 2 && typeof node[0] === 'string' && node[1] !== null && typeof node[1] !== 'object' && isCredentialName(node[0])) {
      node[1] = REDACTED;
      return true;
    }
    const idPair = node.length === 2 && typeof node[0] === 'string' && typeof node[1] === 'string' && isResumptionIdName(node[0]);
    for (let i = idPair ? 2 : 0; i < node.length; i++) {
      const v = node[i];
      if (typeof v === 'string') {
        const s = scrubString(v, depth + 1);
        if (s !== v) {
          node[i] = s;
          changed = true;
        }
      } else if (typeof v === 'object' && v !== null && redactInPlace(v, depth + 1)) changed = true;
    }
    return changed;
  }
  if (!isObject(node)) return false;
  const pairName = typeof node.key === 'string' ? node.key : typeof node.name === 'string' ? node.name : undefined;
  if (pairName !== undefined && 'value' in node && isCredentialName(pairName) && node.value !== null && typeof node.value !== 'boolean') {
    node.value = isObject(node.value) ? { stringValue: REDACTED } : REDACTED;
    changed = true;
  }
  const idValue = pairName !== undefined && 'value' in node && isResumptionIdName(pairName);
  for (const k of Object.keys(node)) {
    const v = node[k];
    if (v === null || typeof v === 'boolean' || (idValue && k === 'value')) continue;
    if (isCredentialName(k)) {
      const r = redactAll(v, depth + 1);
      if (JSON.stringify(r) !== JSON.stringify(v)) {
        node[k] = r;
        changed = true;
      }
    } else if (typeof v === 'string') {
      if (isResumptionIdName(k)) continue;
      const s = scrubString(v, depth + 1);
      if (s !== v) {
        node[k] = s;
        changed = true;
      }
    } else if (typeof v === 'object' && redactInPlace(v, depth + 1)) changed = true;
  }
  return changed;
}

/** A string value: JSON inside it (an OTLP body, a logged request body) is redacted as JSON, other text as text. */
function scrubString(s: string, depth: number): string {
  if (!mayHoldCredential(s)) return s;
  const t = s.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      const inner: unknown = JSON.parse(s);
      if (typeof inner === 'object' && inner !== null) return redactInPlace(inner, depth) ? JSON.stringify(inner) : s;
    } catch {
      // not JSON after all: redacted as text
    }
  }
  return redactText(s);
}

// Every regex here runs on hostile lines of up to 16 MiB, so each is linear: a match can start only where
// nothing before it could have started the same match (a JWT at the start of its run of base64url
// characters; a quoted key at its opening quote, its escape depth counted by hand after the match).
const QUOTED_KEY = /"((?:[^"\\\r\n]|\\u[0-9A-Fa-f]{4}){1,128})(\\*)"\s*:\s*/g;
const HEADER_VALUE = /(^|[\s,;{(\[])([A-Za-z][A-Za-z0-9_.-]{0,63})(\s*:\s*)([^\r\n"]*)/g;
const PARAM_VALUE = /(^|[\s,;?&{(\[])((?:[A-Za-z]|%[0-9A-Fa-f]{2})(?:[A-Za-z0-9_.-]|%[0-9A-Fa-f]{2}){0,63})=([^\s&;,'"}\])]*)/g;
/** Query parameters that are credentials only in a URL: Google's API `key`, an OAuth authorization `code`. */
const QUERY_CREDENTIALS: ReadonlySet<string> = new Set(['key', 'code']);
/** A password in a URL: `https://bob:pw@host`. */
const URL_PASSWORD = /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/[^\s/?#@:"'\\]{0,256}:)[^\s/?#@"'\\]{1,256}@/g;
/** Tokens whose shape says what they are, under any name: GitHub, OpenAI/Anthropic/Stripe, Slack, AWS access key ids. */
const TOKEN_SHAPE =
  /(?<![A-Za-z0-9_-])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]{12,}|[sr]k_(?:live|test)_[A-Za-z0-9]{10,}|xox[abposr]-[A-Za-z0-9-]{10,}|A[KS]IA[0-9A-Z]{16}(?![A-Za-z0-9]))/g;
const SCHEME = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi;
const JWT = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;

/**
 * Redacts text that is not (or not valid) JSON: a broken JSON line, a header
 * dump, a query string, logfmt. Quoted `"name": "value"` pairs at any escape
 * depth, `Name: value` to the end of the line, `name=value` to the next
 * separator, and credential shapes anywhere.
 */
export function redactText(text: string): string {
  if (!mayHoldCredential(text)) return text;
  let out = redactQuotedPairs(text);
  // A query or logfmt value runs to its separator; a header's to the end of its line.
  out = out.replace(PARAM_VALUE, (all, lead: string, name: string) => {
    const plain = name.includes('%') ? name.replace(/%([0-9A-Fa-f]{2})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16))) : name;
    const query = (lead === '?' || lead === '&') && QUERY_CREDENTIALS.has(plain.toLowerCase());
    return query || isCredentialName(plain) ? `${lead}${name}=${REDACTED}` : all;
  });
  out = out.replace(HEADER_VALUE, (all, lead: string, name: string, sep: string, rest: string) => {
    if (!isCredentialName(name)) return all;
    const end = rest.search(/\\[rn]/);
    return `${lead}${name}${sep}${REDACTED}${end < 0 ? '' : rest.slice(end)}`;
  });
  return out
    .replace(SCHEME, (_all, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(JWT, REDACTED)
    .replace(TOKEN_SHAPE, REDACTED)
    .replace(URL_PASSWORD, `$1${REDACTED}@`);
}

function redactQuotedPairs(text: string): string {
  let out = '';
  let from = 0;
  QUOTED_KEY.lastIndex = 0;
  for (let m = QUOTED_KEY.exec(text); m !== null; m = QUOTED_KEY.exec(text)) {
    // `\"name\":` inside a string: the key opened at the depth it closes, so as many backslashes precede it.
    const depth = m[2]!.length;
    const name = m[1]!.includes('\\u') ? m[1]!.replace(/\\u([0-9A-Fa-f]{4})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16))) : m[1]!;
    if (m.index < from || !isCredentialName(name) || !escapedBy(text, m.index, depth)) continue;
    const valueStart = QUOTED_KEY.lastIndex;
    const quote = `${m[2]}"`;
    let start: number;
    let end: number;
    if (text.startsWith(quote, valueStart)) {
      start = valueStart + quote.length;
      end = closingQuote(text, start, depth);
    } else {
      start = valueStart;
      UNQUOTED_END.lastIndex = start;
      end = UNQUOTED_END.test(text) ? UNQUOTED_END.lastIndex - 1 : text.length;
    }
    if (end <= start && !text.startsWith(quote, valueStart)) continue;
    out += text.slice(from, start) + REDACTED;
    from = end;
    QUOTED_KEY.lastIndex = Math.max(end, valueStart);
  }
  return from === 0 ? text : out + text.slice(from);
}

const UNQUOTED_END = /[^,}\]\s]*[,}\]\s]/y;

/** Whether the `depth` characters before `at` are backslashes. */
function escapedBy(text: string, at: number, depth: number): boolean {
  if (at < depth) return false;
  for (let i = at - depth; i < at; i++) if (text.charCodeAt(i) !== 92) return false;
  return true;
}

/** Where a string opened at `start` ends: its closing quote at the same escape depth, or the text's end. */
function closingQuote(text: string, start: number, depth: number): number {
  for (let i = text.indexOf('"', start); i >= 0; i = text.indexOf('"', i + 1)) {
    let bs = 0;
    while (i - bs - 1 >= start && text[i - bs - 1] === '\\') bs++;
    if (bs === depth) return i - depth;
  }
  return text.length;
}

/**
 * Redacts one raw line: the line as it is to be stored. A JSON line is
 * re-serialized only when something was redacted; any other line is redacted
 * as text. Returns the line unchanged (the same string) when nothing was found.
 */
export function redactLine(text: string): string {
  if (!mayHoldCredential(text)) return text;
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    return redactText(text);
  }
  if (typeof obj !== 'object' || obj === null) return redactText(text);
  try {
    return redactInPlace(obj) ? JSON.stringify(obj) : text;
  } catch (err) {
    if (err instanceof TooDeeplyNested) return redactText(text);
    throw err;
  }
}
