import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeLines } from '../helpers/logs.js';

// A JSON string may hold a lone surrogate ("S\ud800" is valid JSON), which UTF-8, and so SQLite, cannot
// hold: stored, it read back as another string, and every finding of that session vanished (exit 0).

const sample = readFileSync('samples/stream-vs-session.ndjson', 'utf8').trim().split('\n');
const sessionOf = (lines: string[]) => (JSON.parse(lines[0]!) as { session: string }).session;
/** The sample with its session id written as `id` (a JSON text, escapes and all). */
const withSessionText = (idJson: string) => sample.map((l) => l.replaceAll(JSON.stringify(sessionOf(sample)), idJson));
const rules = (r: Awaited<ReturnType<typeof analyzeLines>>) => r.findings.map((f) => f.rule).sort();

describe('a session id holding a lone surrogate', () => {
  it('keeps every finding of the session, its id read as U+FFFD where the surrogate was', async () => {
    const plain = await analyzeLines(sample);
    expect(plain.findings.length).toBeGreaterThan(0);
    const lone = await analyzeLines(withSessionText('"S\\ud800"'));
    expect(rules(lone)).toEqual(rules(plain));
    expect(new Set(lone.findings.map((f) => f.session))).toEqual(new Set(['S\ufffd']));
  });

  it('near miss: a surrogate pair (an emoji written as escapes) is kept as it is', async () => {
    const pair = await analyzeLines(withSessionText('"S\\ud83d\\ude00"'));
    expect(new Set(pair.findings.map((f) => f.session))).toEqual(new Set(['S\u{1F600}']));
  });
});
