import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeFiles } from '../../src/api.js';
import { evidenceLines, findingsOf } from '../helpers/logs.js';

// Logs recorded from a real @modelcontextprotocol/sdk server (dist/instrument) and a raw-HTTP client on
// loopback, by the real-traffic review: findings that fire by design, whose words must fit their evidence.
const fixture = (name: string) => join(fileURLToPath(new URL('.', import.meta.url)), 'fixtures', 'realtraffic', name);

describe('real-traffic logs: messages that say what the evidence shows', () => {
  it('answered-request-replayed names the stream that sent the cursor, and the new stream apart (sdk-replayanswered)', async () => {
    const [f, ...rest] = findingsOf(await analyzeFiles([fixture('sdk-replayanswered.ndjson')]), 'answered-request-replayed');
    expect(rest).toEqual([]);
    // e3 was sent on post-2 (line 10, priming); get-3 is the stream the resumption opened
    expect(f?.message).toMatch(/^resume of \S+ from event e3 on post-2 \(new stream get-3\) replays request 0 \(sampling\/createMessage\)/);
  });

  it('event-id-without-session says a cursor the stateless SDK accepted and replayed nothing for was ignored (stateless-probe)', async () => {
    const [f, ...rest] = findingsOf(await analyzeFiles([fixture('stateless-probe.ndjson')]), 'event-id-without-session');
    expect(rest).toEqual([]);
    // line 2: "decision":"attach","replayed":0, no replayed ids
    expect(f?.message).toContain('carrying Last-Event-ID e5 but no Mcp-Session-Id, and ignored the cursor (replayed nothing)');
    expect(f?.message).not.toContain('global log');
  });

  it('orphaned-request says the SDK replayed the request before it timed out, and cites that resumption (slow-answer)', async () => {
    const [f, ...rest] = findingsOf(await analyzeFiles([fixture('slow-answer.ndjson')]), 'orphaned-request');
    expect(rest).toEqual([]);
    expect(f?.message).toContain(
      'on post-2 was stranded: post-2 was closed at 2026-12-07T21:06:01.337Z while it was pending; ' +
        'it was replayed on the resumed lineage at 2026-12-07T21:06:01.454Z but never answered, re-issued or cancelled before it timed out at 2026-12-07T21:06:09.320Z',
    );
    // line 14: upgrade resume from e3 post-2→get-3, replayed_ids ["e4"]
    expect(evidenceLines(f!)).toEqual([12, 13, 14, 17]);
  });

  it('orphaned-request says the client had received the request its resumption named (v0618, Last-Event-ID e8)', async () => {
    const [f, ...rest] = findingsOf(await analyzeFiles([fixture('v0618.ndjson')]), 'orphaned-request');
    expect(rest).toEqual([]);
    expect(f?.message).toContain('the client had received it (its event was the Last-Event-ID of a resumption at 2026-12-07T21:05:07.562Z)');
    expect(evidenceLines(f!)).toEqual([37, 38, 39, 42]);
  });
});
