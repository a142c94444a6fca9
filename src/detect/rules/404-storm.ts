import { defineRule } from '../rule.js';
import { at, duration, listIds, plural } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import { evidenceIds, queryRows } from '../query-rows.js';
import type { DetectOptions, DetectorOutput, RawFinding } from '../types.js';

interface StormRow {
  session: string;
  at_ms: number;
  posts: number;
  first_ms: number;
  last_ms: number;
  answers: number;
  calls: number;
  proxy_posts: number;
  rpc_ids: string;
  evidence: string;
}

function judge404Storm(db: Db, opts: DetectOptions): DetectorOutput {
  const findings = queryRows<StormRow>(db, 'rules/404-storm', opts).map((r): RawFinding => {
    const kinds = [
      r.answers > 0 ? plural(r.answers, 'answer to a server request', 'answers to server requests') : '',
      r.calls > 0 ? plural(r.calls, 'client call') : '',
      r.proxy_posts > 0 ? plural(r.proxy_posts, 'POST', 'POSTs') + ' logged by the proxy' : '',
    ].filter((k) => k !== '');
    const ids = JSON.parse(r.rpc_ids) as string[];
    // each id as often as it was POSTed, so that the ids add up to the count
    const times = new Map<string, number>();
    for (const id of ids) times.set(id, (times.get(id) ?? 0) + 1);
    return {
      rule: '404-storm',
      session: r.session,
      atMs: r.at_ms,
      message:
        `${r.posts} POSTs for ${r.session} got 404 between ${at(r.first_ms)} and ${at(r.last_ms)} ` +
        `(at least ${opts.stormCount} within ${duration(opts.stormWindowMs)}: ${kinds.join(', ')})` +
        `${ids.length > 0 ? `, JSON-RPC ids ${listIds([...times].map(([id, n]) => (n > 1 ? `${id} (${n} POSTs)` : id)))}` : ''}: the client keeps using a session or request ids the server no longer knows`,
      evidenceIds: evidenceIds(r.evidence),
    };
  });
  return { findings, notKnowable: [] };
}

export default defineRule({
  id: '404-storm',
  severity: 'warning',
  family: 'http-edge',
  summary: 'Many POSTs for one session got 404 in a short window.',
  seeds: ['000'],
  explanation: {
    meaning:
      'At least 5 POSTs for one session id got 404 within 10 seconds (both thresholds configurable).',
    whyItBreaks:
      'A burst of 404s on one session is the symptom of ids that outlived their session: clients answering requests or calling tools on a session the server no longer knows, typically after a replay from a dead or foreign session. Clients that take a 404 for a transport error retry, and duplicate work.',
    shouldHave:
      'Reject stale session and event ids at the reconnect rather than at every later POST, and look for the cause among the session\'s earlier findings (foreign-event-id, resume-after-end, silent-fork); a client should re-initialize on 404, not retry.',
  },
  live: { reads: [], settles: 'at-once' },
  detect: (ctx) => judge404Storm(ctx.db, ctx.opts),
});
