import { describe, expect, it } from 'vitest';
import { LineNormalizer } from '../../src/normalize/normalize-line.js';
import { isCredentialName, redactLine, redactText } from '../../src/normalize/redact.js';

// Which names and shapes are credentials, and what a redacted line looks like.

describe('credential names', () => {
  it.each([
    'authorization', 'Authorization', 'PROXY-AUTHORIZATION', 'cookie', 'Set-Cookie', 'x-api-key', 'X-Auth-Token', 'x-amz-security-token',
    'token', 'access_token', 'refreshToken', 'id_token', 'password', 'passwd', 'client_secret', 'secret', 'api_key', 'apiKey', 'APIKey',
    'private_key', 'http_cookie', 'sent_http_set_cookie', 'http.request.header.authorization', 'credentials', 'auth', 'jwt',
    'ocp-apim-subscription-key', 'X-Amz-Signature', 'x-goog-signature', 'sig', 'signature',
    // a credential word that is not the last word, or numbered
    'auth_header', 'cookie_header', 'tokenValue', 'token2', 'session_secret_b64', 'client_assertion', 'x-api-key-value', 'PASSWORD_2',
  ])('%s is one', (name) => {
    expect(isCredentialName(name)).toBe(true);
  });

  it.each([
    'mcp-session-id', 'last-event-id', 'Last-Event-ID', 'session', 'session_id', 'event_id', 'token_fp', 'token_fingerprint', 'token_hash',
    'jwt_sub', 'input_tokens', 'max_tokens', 'token_count', 'principal', 'key', 'idempotency-key', 'mcp-protocol-version', 'author', 'oauth_provider',
    'progressToken', 'progress_token', 'maxTokens', 'signal', 'sig_count', 'signature_algorithm', 'design',
    'session_token_count', 'token_fp_value', 'auth_header_count', 'client_assertion_type', 'assertion', 'code',
  ])('%s is not', (name) => {
    expect(isCredentialName(name)).toBe(false);
  });
});

describe('a redacted line', () => {
  it('keeps ids, the record and its shape; only credential values become the marker', () => {
    const line = JSON.stringify({
      ts: '2026-11-09T10:00:00.000Z', kind: 'http', method: 'GET', status: 200,
      req_headers: { 'Mcp-Session-Id': 'S1', 'Last-Event-ID': '41', Authorization: 'Bearer abc.def', Cookie: 'a=1; b=2' },
      resp_headers: { 'content-type': 'text/event-stream', 'set-cookie': ['x=1', 'y=2'] },
      token_fp: 'fp:1', principal: 'sub:alice',
    });
    const out = JSON.parse(redactLine(line)) as Record<string, Record<string, unknown>>;
    expect(out.req_headers).toEqual({ 'Mcp-Session-Id': 'S1', 'Last-Event-ID': '41', Authorization: '[redacted]', Cookie: '[redacted]' });
    expect(out.resp_headers).toEqual({ 'content-type': 'text/event-stream', 'set-cookie': ['[redacted]', '[redacted]'] });
    expect(out.token_fp).toBe('fp:1');
    expect(out.principal).toBe('sub:alice');
  });

  it('a line without credentials is returned as it was, byte for byte', () => {
    const line = '{"ts": "2026-11-09T10:00:00.000Z",  "kind":"session.created","session":"S1","token_fp":"fp:1","rpc_id":12345678901234567890}';
    expect(redactLine(line)).toBe(line);
  });

  it('at any depth, in wrappers, OTLP pairs, header lists and JSON inside strings', () => {
    const line = JSON.stringify({
      mcp: { data: { password: 'p1', deeper: [{ refresh_token: 'r1' }] } },
      attributes: [{ key: 'http.request.header.cookie', value: { arrayValue: { values: [{ stringValue: 'c1' }] } } }, { key: 'mcp.session.id', value: { stringValue: 'S1' } }],
      headers: [['Authorization', 'Basic b1'], ['Accept', 'text/event-stream']],
      body: JSON.stringify({ params: { arguments: { api_key: 'k1', city: 'Oslo' } } }),
    });
    const out = redactLine(line);
    for (const s of ['p1', 'r1', 'c1', 'b1', 'k1']) expect(out).not.toContain(`"${s}`);
    expect(out).toContain('Oslo');
    expect(out).toContain('"mcp.session.id","value":{"stringValue":"S1"}');
    expect(out).toContain('["Accept","text/event-stream"]');
  });

  it('credential shapes under names nobody listed: Bearer, Basic, a JWT', () => {
    const out = redactLine(JSON.stringify({ note: 'sent Bearer abcdef123', x_forwarded: 'Basic dXNlcjpwYXNz', other: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln' }));
    expect(JSON.parse(out)).toEqual({ note: 'sent Bearer [redacted]', x_forwarded: 'Basic [redacted]', other: '[redacted]' });
  });

  it('text that is not JSON: header lines, query strings, broken JSON at any escape depth', () => {
    expect(redactText('GET /mcp?access_token=t1&x=1 HTTP/1.1')).toBe('GET /mcp?access_token=[redacted]&x=1 HTTP/1.1');
    expect(redactText('Authorization: Bearer t2')).toBe('Authorization: [redacted]');
    expect(redactText('{"kind":"upgrade","password":"t3","session":"S1"')).toBe('{"kind":"upgrade","password":"[redacted]","session":"S1"');
    expect(redactText('{"msg":"{\\"token\\":\\"t4\\",\\"id\\":1}"')).toBe('{"msg":"{\\"token\\":\\"[redacted]\\",\\"id\\":1}"');
    expect(redactText('{"token":"cut off in the midd')).toBe('{"token":"[redacted]');
    expect(redactText('mcp-session-id: S1 last-event-id=41')).toBe('mcp-session-id: S1 last-event-id=41');
    // a presigned URL's signature and a shared access signature grant access as a key does
    expect(redactText('/mcp?api_key=k5&sig=s5&se=2026')).toBe('/mcp?api_key=[redacted]&sig=[redacted]&se=2026');
    expect(redactText('https://b/o?X-Amz-Credential=c6&X-Amz-Signature=s6&X-Amz-Expires=60')).toBe(
      'https://b/o?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]&X-Amz-Expires=60',
    );
  });
});

describe('credentials the names and shapes above used to miss', () => {
  it('a password in a URL, URL-encoded names, ?key= and ?code=, escaped JSON keys, well-known token shapes', () => {
    const line = JSON.stringify({
      ts: '2026-11-09T10:00:00.000Z', kind: 'http',
      req_headers: { referer: 'https://bob:pw1@app.example/cb', 'mcp-session-id': 'S1' },
      path: '/mcp?access%5Ftoken=t2&x=1',
      url: 'https://maps.example/api?key=k3&code=c4&state=s',
      note: 'keys ghp_abcdefghijklmnopqrstuvwxyz0123 github_pat_11ABCDEFG0123456789_abcdefghij sk-live-4bcdefghijkl xoxb-1234567890-abcdef AKIAIOSFODNN7EXAMPLE',
      tokenValue: 'v5', token2: 'v6', session_secret_b64: 'v7', client_assertion: 'v8', auth_header: 'v9',
    }).replace('"note"', '"\\u0074oken":"e10","note"');
    const out = redactLine(line);
    for (const s of ['pw1', 't2', 'k3', 'c4', 'ghp_', 'github_pat_', 'sk-live', 'xoxb-', 'AKIA', 'v5', 'v6', 'v7', 'v8', 'v9', 'e10']) expect(out, s).not.toContain(s);
    expect(JSON.parse(out)).toMatchObject({ req_headers: { referer: 'https://bob:[redacted]@app.example/cb', 'mcp-session-id': 'S1' }, path: '/mcp?access%5Ftoken=[redacted]&x=1', url: 'https://maps.example/api?key=[redacted]&code=[redacted]&state=s' });
    // alone on its line: the quick check on the raw text sees the escape, the walk the decoded name
    expect(redactLine('{"kind":"session.created","session":"S1","\\u0074oken":"e11"}')).toBe('{"kind":"session.created","session":"S1","token":"[redacted]"}');
    expect(redactLine('{"kind":"session.created","session":"S1","note":"see https://bob:pw12@h/"}')).toBe('{"kind":"session.created","session":"S1","note":"see https://bob:[redacted]@h/"}');
    // the same as text, for a broken line
    expect(redactText('GET https://bob:pw1@h/x?p%61ssword=t2&key=k3 {"\\u0074oken":"e10"')).toBe('GET https://bob:[redacted]@h/x?p%61ssword=[redacted]&key=[redacted] {"\\u0074oken":"[redacted]"');
  });

  it('near misses stay: ports without a password, other parameters, kebab names, counts, resumption ids shaped like tokens', () => {
    const kept = {
      ts: '2026-11-09T10:00:00.000Z', kind: 'http', path: 'https://host:8443/mcp?keyword=k&code_challenge=c&mode=sk-learn-model', note: 'code=200 key=k1', session_token_count: 3,
      session: 'ghp_abcdefghijklmnopqrstuvwxyz0123', event_id: 'AKIAIOSFODNN7EXAMPLE', stream: 'sk-live-4bcdefghijkl',
      req_headers: { 'Mcp-Session-Id': 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln', 'Last-Event-ID': 'xoxb-1234567890-abcdef' },
      headers: [['mcp-session-id', 'github_pat_11ABCDEFG0123456789_abcdefghij']],
      attributes: [{ key: 'mcp.session.id', value: { stringValue: 'ghp_abcdefghijklmnopqrstuvwxyz0123' } }],
    };
    const line = JSON.stringify({ ...kept, token: 'x' });
    expect(JSON.parse(redactLine(line))).toEqual({ ...kept, token: '[redacted]' });
  });
});

describe('hostile lines are redacted in linear time', () => {
  // Each took minutes on a 1 MB line when the JWT and quoted-key patterns could restart at every
  // character of a run; the timeout only stops a hang, the assertions are on the output.
  const MB = 1024 * 1024;
  it('a 1 MB run of eyJ, and of backslashes before a quote, beside a credential', { timeout: 20_000 }, () => {
    const eyj = 'eyJ'.repeat(MB / 3);
    expect(redactLine(JSON.stringify({ note: eyj, token: 's1' }))).toBe(JSON.stringify({ note: eyj, token: '[redacted]' }));
    const bs = '\\'.repeat(MB);
    expect(redactText(`{"token":"s2","x":"${bs}"`)).toBe(`{"token":"[redacted]","x":"${bs}"`);
    expect(redactText(`token ${bs}"`)).toBe(`token ${bs}"`);
    // a JWT at the end of the run is still one
    expect(redactText(`${'\\'.repeat(MB)}"token" eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln`)).toBe(`${'\\'.repeat(MB)}"token" [redacted]`);
  });

  it('escaped keys still match at their own depth, not at a deeper or shallower one', () => {
    expect(redactText('{"m":"{\\\\\"token\\\\\":\\\\\"t5\\\\\"}"')).toBe('{"m":"{\\\\\"token\\\\\":\\\\\"[redacted]\\\\\"}"');
    // closed by one backslash more than opened it: not a key
    expect(redactText('{"m":"x\\"token\\\\": 1, "auth_note_count": 2}')).toBe('{"m":"x\\"token\\\\": 1, "auth_note_count": 2}');
  });
});

describe('the normalizer reads the redacted line', () => {
  it('records carry no credential, and the outcome says what to store', () => {
    const n = new LineNormalizer();
    const out = n.normalize(JSON.stringify({ ts: '2026-11-09T10:00:00.000Z', kind: 'http', method: 'GET', status: 200, req_headers: { authorization: 'Bearer z1', 'mcp-session-id': 'S1', 'last-event-id': '3' } }));
    expect(out.type).toBe('records');
    if (out.type !== 'records') return;
    expect(out.redacted).toContain('"authorization":"[redacted]"');
    expect(JSON.stringify(out.records)).not.toContain('z1');
    // The inference still sees the resumption the headers describe.
    expect(out.records.map((r) => r.kind)).toEqual(['http', 'upgrade']);
    expect(out.records[1]).toMatchObject({ session: 'S1', lastEventId: '3', decision: 'resume' });
  });

  it('an invalid JSON line with a credential: the reason quotes none of the text, the stored line is redacted', () => {
    const out = new LineNormalizer().normalize('{"password": x9secret}');
    expect(out).toEqual({ type: 'rejected', reason: expect.stringMatching(/^invalid JSON: /), redacted: '{"password": [redacted]}' });
    if (out.type === 'rejected') expect(out.reason).not.toContain('x9secret');
  });

  it("a logged progress notification keeps its progressToken and no redacted copy; a token beside it is still redacted", () => {
    const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok-7', progress: 3, total: 10 } };
    const line = { ts: '2026-11-09T10:00:00.000Z', kind: 'event.sent', session: 'S1', stream: 'g1', event_id: '4', message: progress };
    const kept = new LineNormalizer().normalize(JSON.stringify(line));
    expect(kept.type).toBe('records');
    expect(kept).not.toHaveProperty('redacted');
    const withToken = new LineNormalizer().normalize(JSON.stringify({ ...line, message: { ...progress, params: { ...progress.params, _meta: { accessToken: 'x9secret' } } } }));
    expect(withToken.type).toBe('records');
    if (withToken.type === 'records') {
      expect(withToken.redacted).toContain('"progressToken":"tok-7"');
      expect(withToken.redacted).not.toContain('x9secret');
    }
  });

  it('a line nested thousands of levels deep with a credential is rejected, redacted, and the next line is read', () => {
    const n = new LineNormalizer();
    const deep = (levels: number) => `{"ts":"2026-11-09T10:00:00.000Z","kind":"session.created","session":"S1","token":"x9secret","x":${'['.repeat(levels)}${']'.repeat(levels)}}`;
    const out = n.normalize(deep(5000));
    expect(out).toMatchObject({ type: 'rejected', reason: expect.stringMatching(/^JSON nested deeper than 1,000 levels/) });
    if (out.type === 'rejected') expect(out.redacted).toContain('"token":"[redacted]"');
    expect(JSON.stringify(out)).not.toContain('x9secret');
    expect(n.normalize(JSON.stringify({ ts: '2026-11-09T10:00:00.000Z', kind: 'session.created', session: 'S2', token: 'y' })).type).toBe('records');
    // within the cap the line is read and redacted as JSON
    const within = n.normalize(deep(900));
    expect(within.type).toBe('records');
    if (within.type === 'records') expect(within.redacted).toContain('"token":"[redacted]"');
    // deep JSON inside a string counts its depth on
    const inString = JSON.stringify({ ts: '2026-11-09T10:00:00.000Z', kind: 'session.created', session: 'S3', body: `${'['.repeat(5000)}"token"${']'.repeat(5000)}`, token: 'x9secret' });
    expect(JSON.stringify(n.normalize(inString))).not.toContain('x9secret');
  });

  it('a line with no credential keeps no redacted copy', () => {
    const out = new LineNormalizer().normalize(JSON.stringify({ ts: '2026-11-09T10:00:00.000Z', kind: 'session.created', session: 'S1', token_fp: 'fp' }));
    expect(out.type).toBe('records');
    expect(out).not.toHaveProperty('redacted');
  });
});
