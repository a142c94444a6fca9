import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Copies of the samples with a credential in every place a log can carry one.
// Every secret contains SECRET, so one search finds any that leaked.

export const SECRET = 'S3CR3T';
let n = 0;
const secret = (): string => `${SECRET}-${++n}-zq`;

type Json = Record<string, unknown>;

const lines = (file: string): Json[] =>
  readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Json);

/** Spec-format records: token fields on server records, nested in a wrapper, and credential headers on http records. */
function specRecord(r: Json): Json {
  const out: Json = { ...r, token: secret(), access_token: secret(), data: { password: secret(), auth: { client_secret: secret(), apiKey: secret() } } };
  if (r.kind === 'http') {
    out.req_headers = { ...(r.req_headers as Json), Authorization: `Bearer ${secret()}`, cookie: `sid=${secret()}; theme=dark`, 'X-Api-Key': secret(), 'Proxy-Authorization': `Basic ${secret()}`, 'x-auth-token': secret() };
    out.resp_headers = { ...(r.resp_headers as Json), 'Set-Cookie': `sid=${secret()}; HttpOnly` };
  } else {
    out.headers = { authorization: `Bearer ${secret()}`, 'mcp-session-id': r.session ?? null };
  }
  return out;
}

function nginxLine(r: Json): Json {
  return { ...r, http_authorization: `Bearer ${secret()}`, http_cookie: `a=${secret()}`, http_x_api_key: secret(), sent_http_set_cookie: `sid=${secret()}`, upstream_http_set_cookie: `sid=${secret()}`, request_uri: `${String(r.request_uri ?? '/mcp')}?access_token=${secret()}` };
}

function envoyLine(r: Json): Json {
  return { ...r, authorization: `Bearer ${secret()}`, req_cookie: secret(), 'x-api-key': secret(), resp_set_cookie: secret(), downstream_authorization: `Basic ${secret()}` };
}

const kv = (key: string, value: unknown) => ({ key, value });

function otlpExport(r: Json): Json {
  const copy = JSON.parse(JSON.stringify(r)) as { resourceLogs: { resource: { attributes: unknown[] }; scopeLogs: { logRecords: Json[] }[] }[] };
  for (const rl of copy.resourceLogs) {
    rl.resource.attributes.push(kv('api_key', { stringValue: secret() }));
    for (const sl of rl.scopeLogs) {
      for (const lr of sl.logRecords) {
        (lr.attributes as unknown[]).push(
          kv('http.request.header.authorization', { arrayValue: { values: [{ stringValue: `Bearer ${secret()}` }] } }),
          kv('token', { stringValue: secret() }),
          kv('mcp.request.body', { stringValue: JSON.stringify({ params: { arguments: { password: secret() } } }) }),
          kv('credentials', { kvlistValue: { values: [kv('user', { stringValue: secret() })] } }),
        );
      }
    }
  }
  return copy;
}

export interface SecretLogs {
  spec: string[];
  nginx: string;
  envoy: string;
  otlp: string;
  broken: string;
}

/** Writes the secret-laden copies into `dir`; the samples they came from are the reference reports. */
export function writeSecretLogs(dir: string): SecretLogs {
  const write = (name: string, objs: Json[], extra: string[] = []) => {
    const path = join(dir, name);
    writeFileSync(path, [...objs.map((o) => JSON.stringify(o)), ...extra].join('\n') + '\n');
    return path;
  };
  const spec = ['writers.ndjson', 'http-edge.ndjson', 'session-continuity.ndjson'].map((f) => write(f, lines(`samples/${f}`).map(specRecord)));
  const t = '2026-11-09T10:00:00.000Z';
  const broken = write('broken.ndjson', lines('samples/clean.ndjson'), [
    // invalid JSON, a rejected record, and non-JSON text, each with a credential
    `{"ts":"${t}","kind":"upgrade","authorization":"Bearer ${secret()}","password":"${secret()}`,
    JSON.stringify({ ts: t, kind: 'session.created', password: secret(), headers: { Cookie: secret() } }),
    `GET /mcp?token=${secret()} HTTP/1.1 Authorization: Bearer ${secret()} Cookie: a=${secret()}`,
    `{"ts":"${t}","kind":"session.created","session":"Sx","token":"${secret()}"} trailing`,
  ]);
  return {
    spec,
    nginx: write('nginx.ndjson', lines('samples/proxy/nginx-404-storm.ndjson').map(nginxLine)),
    envoy: write('envoy.ndjson', lines('samples/proxy/envoy-resume.ndjson').map(envoyLine)),
    otlp: write('otlp.json', lines('samples/proxy/otlp-export.json').map(otlpExport)),
    broken,
  };
}
