import { describe, expect, it } from 'vitest';
import { FORMATS, isFormat, render } from '../../src/render/index.js';
import { renderHtml } from '../../src/render/html/index.js';
import { renderJson } from '../../src/render/json.js';
import { renderJunit } from '../../src/render/junit.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { renderSarif } from '../../src/render/sarif.js';
import { renderText } from '../../src/render/text.js';
import { lineText, makeReport } from './fixture.js';

describe('render', () => {
  const report = makeReport();

  it('dispatches each format to its renderer with the options that apply', () => {
    expect(render('json', report)).toBe(renderJson(report));
    expect(render('text', report, { lineText, color: true })).toBe(renderText(report, { lineText, color: true }));
    expect(render('sarif', report, { lineText, toolVersion: '9.9.9', cwd: '/work/repo' })).toBe(renderSarif(report, { lineText, toolVersion: '9.9.9', workingDirectory: '/work/repo' }));
    expect(render('junit', report, { lineText })).toBe(renderJunit(report, { lineText }));
    expect(render('markdown', report, { lineText, failOn: 'critical' })).toBe(renderMarkdown(report, { lineText, failOn: 'critical' }));
    expect(render('html', report, { lineText, failOn: 'critical', toolVersion: '9.9.9' })).toBe(renderHtml(report, { lineText, failOn: 'critical', toolVersion: '9.9.9' }));
  });

  it("takes SARIF's %SRCROOT% from the caller's cwd, not from the process", () => {
    const at = (file: string) => makeReport([{ ...makeReport().findings[0]!, evidence: [{ file, line: 3 }] }]);
    const uriOf = (file: string, cwd: string) => JSON.parse(render('sarif', at(file), { toolVersion: '1.0.0', cwd })).runs[0].results[0].locations[0].physicalLocation.artifactLocation;
    expect(uriOf('/work/repo/logs/a.ndjson', '/work/repo')).toEqual({ uri: 'logs/a.ndjson', uriBaseId: '%SRCROOT%' });
    // Near miss: the same file from another folder lies outside it.
    expect(uriOf('/work/repo/logs/a.ndjson', '/elsewhere')).toEqual({ uri: 'file:///work/repo/logs/a.ndjson' });
    expect(() => render('sarif', report, { toolVersion: '1.0.0' })).toThrow(/opts\.cwd is required/);
  });

  it('knows its formats', () => {
    expect([...FORMATS]).toEqual(['text', 'json', 'sarif', 'junit', 'markdown', 'html']);
    expect(isFormat('sarif')).toBe(true);
    expect(isFormat('html')).toBe(true);
    expect(isFormat('pdf')).toBe(false);
  });

  it('ends every format with a newline and never depends on the clock', () => {
    for (const format of FORMATS) {
      const first = render(format, report, { lineText, toolVersion: '1.0.0', cwd: '/work/repo' });
      expect(first.endsWith('\n')).toBe(true);
      expect(render(format, makeReport(), { lineText, toolVersion: '1.0.0', cwd: '/work/repo' })).toBe(first);
    }
  });
});
