import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const created = (session: string, principal?: string, ms = 0) => ({ ts: at(ms), kind: 'session.created', session, ...(principal && { principal }) });
const opened = { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get', conn: 'c1' };
const sent = (ms: number, id: number) => ({ ts: at(ms), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: id });
const resume = (ms: number, extra: Record<string, unknown>) => ({
  ts: at(ms), kind: 'upgrade', session: 'S1', last_event_id: 1000, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 1, reemitted: 0, ...extra,
});

describe('cross-principal-replay', () => {
  it('flags a resumption served to a principal other than the session owner', async () => {
    const report = await analyzeLines([
      created('S1', 'alice'),
      opened,
      sent(100, 1000),
      sent(200, 1001),
      resume(1000, { principal: 'bob', conn: 'c9' }),
    ]);
    const [f, ...rest] = findingsOf(report, 'cross-principal-replay');
    expect(rest).toHaveLength(0);
    expect(f?.severity).toBe('critical');
    expect(f?.session).toBe('S1');
    expect(f?.message).toContain('bob');
    expect(f?.message).toContain('belongs to alice');
    expect(f?.message).toContain('from event 1000');
    expect(evidenceLines(f!)).toEqual([1, 5]);
  });

  it('follows a foreign event id to the session that emitted it', async () => {
    const report = await analyzeLines([
      created('S1', 'alice'),
      opened,
      sent(100, 1000),
      created('S2', 'bob', 500),
      { ts: at(1000), kind: 'upgrade', session: 'S2', last_event_id: 1000, new_stream: 'h1', decision: 'resume', status: 200, replayed: 3, principal: 'bob' },
    ]);
    const [f] = findingsOf(report, 'cross-principal-replay');
    expect(f?.session).toBe('S2');
    expect(f?.message).toContain('presenting S2 from event 1000 replayed events of S1 (owner alice) to bob');
    expect(evidenceLines(f!)).toEqual([1, 3, 5]);
  });

  it('names no session when the replay was served to a request without one', async () => {
    const report = await analyzeLines([
      created('S1', 'alice'),
      opened,
      sent(100, 1000),
      { ts: at(1000), kind: 'upgrade', session: null, last_event_id: 1000, new_stream: 'x1', decision: 'resume', status: 200, replayed: 2, principal: 'eve' },
      // an id no session emitted: no events of anyone were replayed
      { ts: at(2000), kind: 'upgrade', session: null, last_event_id: 77, new_stream: 'x2', decision: 'resume', status: 200, replayed: 0, principal: 'eve' },
    ]);
    const found = findingsOf(report, 'cross-principal-replay');
    expect(found).toHaveLength(1);
    expect(found[0]?.session).toBeNull();
    expect(found[0]?.message).toContain('presenting no session from event 1000 replayed events of S1 (owner alice) to eve');
    expect(evidenceLines(found[0]!)).toEqual([1, 3, 4]);
    expect(report.not_knowable.filter((n) => n.rule === 'cross-principal-replay')).toEqual([]);
  });

  it('is not knowable where another session had sent the named id too: whose events were served cannot be told', async () => {
    // per-session counters: alice's S1 and bob's S2 both sent event 1000
    const report = await analyzeLines([
      created('S1', 'alice'),
      opened,
      sent(100, 1000),
      created('S2', 'bob', 150),
      { ts: at(200), kind: 'event.sent', session: 'S2', stream: 'h1', event_id: 1000 },
      { ts: at(1000), kind: 'upgrade', session: null, last_event_id: 1000, new_stream: 'x1', decision: 'resume', status: 200, replayed: 2, principal: 'alice' },
    ]);
    expect(findingsOf(report, 'cross-principal-replay')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'cross-principal-replay')).toEqual([
      { rule: 'cross-principal-replay', session: null, reason: expect.stringContaining('event 1000 that the resume at 2026-11-09T10:00:01.000Z named had been sent by S2 and by S1') },
    ]);
  });

  it('near miss: follows the id to its one sender where the same session sent it twice', async () => {
    const report = await analyzeLines([
      created('S1', 'alice'),
      opened,
      sent(100, 1000),
      { ts: at(200), kind: 'event.sent', session: 'S1', stream: 'g3', event_id: 1000 },
      { ts: at(1000), kind: 'upgrade', session: null, last_event_id: 1000, new_stream: 'x1', decision: 'resume', status: 200, replayed: 2, principal: 'eve' },
    ]);
    expect(findingsOf(report, 'cross-principal-replay').map((f) => f.message)).toEqual([
      expect.stringContaining('presenting no session from event 1000 replayed events of S1 (owner alice) to eve'),
    ]);
  });

  it('takes the principal of the stream opened on the connection when the upgrade has none', async () => {
    const lines = (who: string) => [
      created('S1', 'alice'),
      opened,
      sent(100, 1000),
      resume(1000, { conn: 'c2' }),
      { ts: at(1001), kind: 'stream.opened', session: 'S1', stream: 'g2', via: 'get', conn: 'c2', principal: who },
    ];
    expect(findingsOf(await analyzeLines(lines('alice')), 'cross-principal-replay')).toEqual([]);
    const [f] = findingsOf(await analyzeLines(lines('mallory')), 'cross-principal-replay');
    expect(f?.message).toContain('mallory');
    expect(evidenceLines(f!)).toEqual([1, 4, 5]);
  });

  it("does not take the principal of another session's stream that happens to share the connection id", async () => {
    // Connection ids repeat across nodes and proxies multiplex sessions on one connection.
    const report = await analyzeLines([
      created('S1', 'alice'),
      opened,
      sent(100, 1000),
      { ts: at(150), kind: 'session.created', session: 'S2', principal: 'bob' },
      { ts: at(160), kind: 'stream.opened', session: 'S2', stream: 'h1', via: 'get', conn: 'c2', principal: 'bob' },
      resume(1000, { conn: 'c2' }),
    ]);
    expect(findingsOf(report, 'cross-principal-replay')).toEqual([]);
  });

  it('does not flag the owner resuming, with the owner taken from the first principal when the creation has none', async () => {
    const report = await analyzeLines([
      created('S1'),
      { ...opened, principal: 'alice' },
      sent(100, 1000),
      resume(1000, { principal: 'alice' }),
    ]);
    expect(findingsOf(report, 'cross-principal-replay')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'cross-principal-replay')).toEqual([]);
  });

  it('is not knowable without principals', async () => {
    const report = await analyzeLines([created('S1'), opened, sent(100, 1000), resume(1000, {})]);
    expect(findingsOf(report, 'cross-principal-replay')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'cross-principal-replay')).toEqual([
      { rule: 'cross-principal-replay', session: 'S1', reason: expect.stringMatching(/no principal is logged for S1/) },
    ]);
  });
  // rules.md v2: only a replay that served events; ids are per session and attribution needs proof.
  it('does not flag a foreign cursor accepted with nothing replayed, and flags it once an event was replayed', async () => {
    const lines = (replayed: number) => [
      created('S1', 'alice'), opened, sent(100, 1000), // 1-3
      created('S2', 'bob', 200), { ts: at(210), kind: 'stream.opened', session: 'S2', stream: 'h1', via: 'get' }, // 4-5
      { ts: at(300), kind: 'event.sent', session: 'S2', stream: 'h1', event_id: 1 }, // 6
      { ts: at(1000), kind: 'upgrade', session: 'S2', last_event_id: 1000, stream: 'h1', new_stream: 'h2', decision: 'resume', status: 200, replayed, principal: 'bob' },
    ];
    expect(findingsOf(await analyzeLines(lines(0)), 'cross-principal-replay')).toEqual([]);
    expect(findingsOf(await analyzeLines(lines(1)), 'cross-principal-replay').map((f) => f.session)).toEqual(['S2']);
  });

  // A session id minted again: the Last-Event-ID's event was the earlier incarnation's, whose owner it is.
  const reminted = (owner2: string) => [
    { ...created('S1', 'alice'), incarnation: 'i1' }, // 1
    opened, // 2
    sent(100, 5), // 3
    { ts: at(150), kind: 'session.terminated', session: 'S1', reason: 'client_delete' }, // 4
    { ...created('S1', owner2, 200), incarnation: 'i2' }, // 5
    { ts: at(210), kind: 'stream.opened', session: 'S1', stream: 'g7', via: 'get' }, // 6
    { ts: at(220), kind: 'event.sent', session: 'S1', stream: 'g7', event_id: 1 }, // 7
    { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: 5, new_stream: 'g8', decision: 'resume', status: 200, replayed: 1, first_replayed: 6, principal: owner2 }, // 8
  ];

  it("judges a Last-Event-ID an earlier incarnation sent by that incarnation's owner, not the current one's", async () => {
    for (const owner2 of ['bob', 'carol']) {
      const [f, ...rest] = findingsOf(await analyzeLines(reminted(owner2)), 'cross-principal-replay');
      expect(rest).toEqual([]);
      expect(f?.message).toBe(`${owner2} was served a resume of S1 from event 5, which an earlier incarnation of S1, owned by alice, had sent: its events were replayed to another principal`);
      // the owner's creation, the event, the creation again (the client's own), the upgrade
      expect(evidenceLines(f!)).toEqual([1, 3, 5, 8]);
    }
  });

  it('near miss: the same principal owned both incarnations (foreign-event-id still says the replay crossed them)', async () => {
    const report = await analyzeLines(reminted('alice'));
    expect(findingsOf(report, 'cross-principal-replay')).toEqual([]);
    expect(findingsOf(report, 'foreign-event-id').map((f) => evidenceLines(f))).toEqual([[3, 5, 8]]);
  });

  // A server replaying from one global log: the client's own Last-Event-ID, but another session's events after it.
  const globalReplay = (ids: string[]) => [
    created('S1', 'alice'), // 1
    opened, // 2
    { ...sent(100, 0), event_id: 'a-1' }, // 3
    created('S2', 'mallory', 150), // 4
    { ts: at(160), kind: 'event.sent', session: 'S2', stream: 'h1', event_id: 'm-1' }, // 5
    { ts: at(170), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 'a-2' }, // 6
    { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: 'a-1', stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: ids.length, replayed_ids: ids, principal: 'alice' }, // 7
  ];

  it("flags another principal's events replayed after the client's own Last-Event-ID", async () => {
    const [f, ...rest] = findingsOf(await analyzeLines(globalReplay(['m-1', 'a-2'])), 'cross-principal-replay');
    expect(rest).toEqual([]);
    expect(f?.message).toBe('resume presenting S1 from event a-1 replayed event m-1 and other events of S2 (owner mallory) to alice');
    expect(evidenceLines(f!)).toEqual([4, 5, 7]);
  });

  it('near miss: every replayed id the session\'s own', async () => {
    const report = await analyzeLines(globalReplay(['a-2']));
    expect(findingsOf(report, 'cross-principal-replay')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'cross-principal-replay')).toEqual([]);
  });

  it("takes an id a proxy saw on a proxy-only session's own stream as that session's, not another's", async () => {
    const px = (ms: number, headers: Record<string, string>, ids: string[]) => ({
      ts: at(ms), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { accept: 'text/event-stream', ...headers },
      resp_headers: { 'content-type': 'text/event-stream' }, sse_event_ids: ids, duration_ms: 50, principal: 'eve',
    });
    const lines = [
      created('S1', 'alice'), opened, sent(100, 1000), // the server's S1 also emitted 1000
      px(500, { 'mcp-session-id': 'PX' }, ['1000']), // the proxy saw 1000 on PX's own GET
      px(2000, { 'mcp-session-id': 'PX', 'last-event-id': '1000' }, ['1001']),
    ];
    expect(findingsOf(await analyzeLines(lines), 'cross-principal-replay')).toEqual([]);
  });

  describe('clock skew: the presented session sends the id itself just after, on another node', () => {
    // mcp-b's clock runs 1.5 s behind: ivy's S2 is created on mcp-a and sends 1 and 2, the client resumes from 1 on
    // mcp-b, logged 0.7 s before the creation. hank's S1 numbers its events 1, 2 too.
    const skewed = (resumeNode: string) => [
      { ts: at(0), kind: 'session.created', session: 'S1', principal: 'hank', node: 'mcp-a' },
      { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get', conn: 'c1', node: 'mcp-a' },
      { ts: at(100), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1, node: 'mcp-a' },
      { ts: at(200), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 2, node: 'mcp-a' },
      { ts: at(19_300), kind: 'upgrade', session: 'S2', last_event_id: 1, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 1, first_replayed: 2, principal: 'ivy', conn: 'c4', node: resumeNode },
      { ts: at(20_000), kind: 'session.created', session: 'S2', principal: 'ivy', node: 'mcp-a' },
      { ts: at(20_010), kind: 'stream.opened', session: 'S2', stream: 'g1', via: 'get', conn: 'c3', node: 'mcp-a' },
      { ts: at(20_100), kind: 'event.sent', session: 'S2', stream: 'g1', event_id: 1, node: 'mcp-a' },
      { ts: at(20_200), kind: 'event.sent', session: 'S2', stream: 'g1', event_id: 2, node: 'mcp-a' },
    ];

    it("takes the id for the session's own, sent before by a clock ahead: no finding, nothing not knowable", async () => {
      const report = await analyzeLines(skewed('mcp-b'));
      expect(findingsOf(report, 'cross-principal-replay')).toEqual([]);
      expect(report.not_knowable.filter((n) => n.rule === 'cross-principal-replay')).toEqual([]);
    });

    it('near miss: the node that took the resumption logs the later send itself: one clock, the id was S1\'s then', async () => {
      const [f] = findingsOf(await analyzeLines(skewed('mcp-a')), 'cross-principal-replay');
      expect(f?.message).toBe('resume presenting S2 from event 1 replayed events of S1 (owner hank) to ivy');
    });
  });
});

describe('cross-principal-replay: a replay shown without a replayed counter', () => {
  // log-format.md: an absent counter is unknown, not zero; first_replayed, replayed_ids and event.replayed name
  // events the resumption served.
  const servedTo = (principal: string, shown: Record<string, unknown>, after: Record<string, unknown>[] = []) => [
    created('S1', 'alice'),
    opened,
    sent(100, 1),
    sent(200, 2),
    sent(300, 3),
    { ts: at(400), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'client' },
    { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: 1, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, reemitted: 0, principal, ...shown },
    ...after,
  ];
  const replayedOn = (ms: number, id: number) => ({ ts: at(ms), kind: 'event.replayed', session: 'S1', stream: 'g2', event_id: id, of_stream: 'g1' });
  const ways: [string, Record<string, unknown>, Record<string, unknown>[]][] = [
    ['replayed_ids only', { replayed_ids: [2, 3] }, []],
    ['first_replayed only', { first_replayed: 2 }, []],
    ['event.replayed records only', {}, [replayedOn(1001, 2), replayedOn(1002, 3)]],
  ];

  for (const [way, shown, after] of ways) {
    it(`flags another principal served a resume whose replay shows in ${way}`, async () => {
      const [f, ...rest] = findingsOf(await analyzeLines(servedTo('eve', shown, after)), 'cross-principal-replay');
      expect(rest).toEqual([]);
      expect(f?.severity).toBe('critical');
      expect(f?.message).toBe('eve was served a resume of S1 from event 1, but S1 belongs to alice: its events were replayed to another principal');
    });
  }

  it('near miss: the owner served the same resume, shown each way', async () => {
    for (const [way, shown, after] of ways) {
      expect(findingsOf(await analyzeLines(servedTo('alice', shown, after)), 'cross-principal-replay'), way).toEqual([]);
    }
  });
});
