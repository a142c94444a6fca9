import { RULE_IDS } from '../../src/detect/rules/index.js';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOrder } from '../../src/render/common.js';
import { renderHtml } from '../../src/render/html/index.js';
import { cli } from '../cli/run-cli.js';
import { hostileLog, htmlOfLogs, IMG_PAYLOAD, manyFindings, REJECTED_PAYLOAD, SCRIPT_PAYLOAD } from './html-fixture.js';

// The HTML report in a real browser: Debian's Chromium, driven by
// playwright-core. CI installs it (.ci/run) and must run this; on a machine
// without it the file is skipped, unless CI=true, where it fails and says why.

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
const STEP_MS = 15_000;

describe.skipIf(!haveChromium && !inCi)('the HTML report in headless Chromium', () => {
  let browser: Browser | undefined;
  let dir: string;

  beforeAll(async () => {
    if (!haveChromium) throw new Error(`${CHROMIUM} is missing: CI must install Debian's chromium (apt-get install chromium) to test the HTML report`);
    dir = mkdtempSync(join(tmpdir(), 'resumescope-html-'));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], timeout: 30_000 });
  }, 40_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Opens a file with everything the page says to the console kept, and any network request recorded. */
  async function open(file: string): Promise<{ page: Page; console: string[]; requests: string[] }> {
    const page = await browser!.newPage({ viewport: { width: 1300, height: 900 } });
    page.setDefaultTimeout(STEP_MS);
    const console: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => console.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => console.push(`pageerror: ${e.message}`));
    page.on('request', (r) => {
      if (r.url() !== pathToFileURL(file).href) requests.push(r.url());
    });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 60_000 });
    return { page, console, requests };
  }

  it('renders the summary, a finding with its evidence, and swimlanes, written by analyze --format html', async () => {
    const log = join(dir, 'hostile.ndjson');
    writeFileSync(log, hostileLog());
    const file = join(dir, 'report.html');
    const run = await cli('analyze', log, '--format', 'html', '-o', file, '--fail-on', 'never');
    expect(run.code).toBe(0);
    const { page, console, requests } = await open(file);
    try {
      await expect(page.locator('#summary h2').textContent()).resolves.toBe('Summary');
      await expect(page.locator('#summary .tile').first().textContent()).resolves.toContain('20');
      const finding = page.locator('#finding-1');
      await finding.waitFor({ state: 'visible' });
      await expect(finding.locator('ol.evidence li').count()).resolves.toBeGreaterThan(0);
      await expect(finding.locator('ol.evidence .where').first().textContent()).resolves.toMatch(/hostile\.ndjson:\d+$/);
      const svg = page.locator('#timeline-0 svg.swim');
      await svg.waitFor({ state: 'visible' });
      await expect(svg.locator('.lane-head').allTextContents()).resolves.toEqual(expect.arrayContaining(['S', 'A', 'B', 'C']));
      await expect(svg.locator('line.life').count()).resolves.toBeGreaterThan(3);
      await expect(svg.locator('rect.band').count()).resolves.toBeGreaterThan(3);
      const box = await svg.boundingBox();
      expect(box!.height).toBeGreaterThan(300);
      await page.locator('#timeline-0').screenshot({ path: join(dir, 'timeline.png'), timeout: STEP_MS });
      await page.screenshot({ path: join(dir, 'report.png'), fullPage: true, timeout: STEP_MS });
      expect(existsSync(join(dir, 'report.png'))).toBe(true);

      // The hostile fields are on screen as text, and ran nowhere.
      await expect(page.evaluate('window.__pwned')).resolves.toBeUndefined();
      await expect(page.locator('img').count()).resolves.toBe(0);
      await expect(page.getByText(SCRIPT_PAYLOAD, { exact: true }).first().isVisible()).resolves.toBe(true);
      await expect(page.locator('#rejected code').first().textContent()).resolves.toBe(REJECTED_PAYLOAD);
      await expect(page.locator('#timeline-0 table.lanes').textContent()).resolves.toContain(`U2${IMG_PAYLOAD}`);
      // The policy allowed our own style and script (the styles applied) and nothing asked for the network.
      expect(console.filter((c) => /Refused|error/i.test(c))).toEqual([]);
      expect(requests).toEqual([]);
      await expect(page.evaluate("getComputedStyle(document.querySelector('h2')).borderBottomStyle")).resolves.toBe('solid');
    } finally {
      await page.close();
    }
  }, 60_000);

  it('pages hostile findings drawn by its script as text, and draws a page as the server did', async () => {
    const { html, report } = await htmlOfLogs({ 'hostile.ndjson': hostileLog(3) }, { pageSize: 1 });
    // Three copies of the sample: each rule three times its findings in one copy (dual-writer has two there).
    const perRule = new Map<string, number>();
    for (const f of report.findings) perRule.set(f.rule, (perRule.get(f.rule) ?? 0) + 1);
    const file = join(dir, 'paged.html');
    writeFileSync(file, html);
    const { page, console } = await open(file);
    try {
      const pager = page.locator('nav.pager').first();
      await pager.waitFor({ state: 'visible' });
      const list = page.locator('.findings').first();
      const server = await list.innerHTML();
      const navs = await page.locator('nav.pager').all();
      expect(navs.length).toBe(perRule.size); // a pager per rule: one finding a page
      const totals: number[] = [];
      for (const nav of navs) {
        await nav.locator('button[data-go="next"]').click();
        const where = (await nav.locator('.where').textContent()) ?? '';
        expect(where).toMatch(/^findings 2–2 of \d+$/);
        totals.push(Number(where.split(' of ')[1]));
        await nav.locator('button[data-go="last"]').click();
      }
      expect(totals.sort()).toEqual([...perRule.values()].sort());
      expect(Math.min(...totals)).toBe(3);
      // Drawn by the script from the JSON data: the hostile session id, as text.
      await expect(page.getByText(`${SCRIPT_PAYLOAD} #3`, { exact: true }).first().isVisible()).resolves.toBe(true);
      await expect(page.locator('nav.pager').first().locator('button[data-go="next"]').isDisabled()).resolves.toBe(true);
      await page.locator('nav.pager').first().locator('input').fill('1');
      await page.locator('nav.pager').first().locator('input').dispatchEvent('change');
      // Page 1 redrawn by the script is the page the server wrote.
      expect(await list.innerHTML()).toBe(server);
      await expect(page.evaluate('window.__pwned')).resolves.toBeUndefined();
      await expect(page.locator('img').count()).resolves.toBe(0);
      await expect(page.locator('script').count()).resolves.toBe(await page.locator('script[type="application/json"]').count() + 1);
      expect(console.filter((c) => /Refused|error/i.test(c))).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('loads 40,000 findings in bounded time with a small DOM, and pages to the last of them', async () => {
    const { report, lineText } = manyFindings(40_000);
    const file = join(dir, 'many.html');
    // Every finding carried (--max-findings 40000): the pager's worst case.
    writeFileSync(file, renderHtml(report, { lineText, maxFindings: 40_000 }));
    const started = Date.now();
    const { page, console } = await open(file);
    try {
      const loadMs = Date.now() - started;
      expect(loadMs).toBeLessThan(60_000); // a bound, not a speed goal (that lives in npm run bench)
      const elements = await page.evaluate<number>("document.querySelectorAll('*').length");
      expect(elements).toBeLessThan(15_000);
      await expect(page.locator('article.finding').count()).resolves.toBe(RULE_IDS.length * 20);

      const nav = page.locator('nav.pager').last();
      await nav.locator('button[data-go="last"]').click();
      await page.locator('#finding-40000').waitFor({ state: 'visible' });
      await expect(nav.locator('.where').textContent()).resolves.toMatch(/^findings [\d,]+–([\d,]+) of \1$/); // the last page of the last rule
      // The hostile message, far down its rule's pages, reached by its number.
      const hostile = [...reportOrder(report.findings)].findIndex((f) => f.message.includes(SCRIPT_PAYLOAD)) + 1;
      await page.evaluate(`location.hash = '#finding-${hostile}'`);
      await expect(page.locator(`#finding-${hostile} .msg`).textContent()).resolves.toContain(SCRIPT_PAYLOAD);
      // A link to a finding on another page draws that page.
      await page.evaluate("location.hash = '#finding-12345'");
      await page.locator('#finding-12345').waitFor({ state: 'visible' });
      // Still one page per rule (some now a short last page), never the pages seen so far.
      await expect(page.evaluate("document.querySelectorAll('article.finding').length")).resolves.toBeLessThanOrEqual(RULE_IDS.length * 20);
      await expect(page.evaluate('window.__pwned')).resolves.toBeUndefined();
      await page.screenshot({ path: join(dir, 'many.png'), timeout: STEP_MS });
      expect(console.filter((c) => /Refused|error/i.test(c))).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);
});
