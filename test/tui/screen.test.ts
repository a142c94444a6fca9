import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { ENTER_ALT_SCREEN, enterFullScreen, ERASE_SCROLLBACK, LEAVE_ALT_SCREEN, type FullScreen } from '../../src/tui/wire/screen.js';

/** A terminal stand-in: what is written, in order. */
class FakeStdout extends EventEmitter {
  isTTY = true;
  columns = 80;
  rows = 24;
  written = '';
  write(chunk: string, cb?: () => void) {
    this.written += chunk;
    cb?.();
    return true;
  }
}

const open: FullScreen[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.leave();
});

function start() {
  const real = new FakeStdout();
  const screen = enterFullScreen(real as unknown as NodeJS.WriteStream);
  open.push(screen);
  return { real, screen };
}

describe('enterFullScreen', () => {
  it('switches to the alternate screen before anything is drawn, and back on leave, once', () => {
    const { real, screen } = start();
    expect(real.written.startsWith(ENTER_ALT_SCREEN)).toBe(true);
    screen.stdout.write('frame');
    screen.leave();
    screen.leave();
    expect(real.written.endsWith(LEAVE_ALT_SCREEN)).toBe(true);
    expect(real.written.split(LEAVE_ALT_SCREEN)).toHaveLength(2);
    expect(real.written.indexOf('frame')).toBeLessThan(real.written.indexOf(LEAVE_ALT_SCREEN));
  });

  it("drops ink's erase-scrollback from a full redraw and keeps the screen clear and the frame", () => {
    const { real, screen } = start();
    // ansi-escapes' clearTerminal, as ink writes it before a frame as tall as the terminal.
    screen.stdout.write(`\x1b[2J${ERASE_SCROLLBACK}\x1b[Hresumescope  recorded`);
    expect(real.written).not.toContain(ERASE_SCROLLBACK);
    expect(real.written).toContain('\x1b[2J\x1b[Hresumescope  recorded');
  });

  it('passes the other escapes through untouched (a near miss: ESC[2J, ESC[3A, ESC[?25l)', () => {
    const { real, screen } = start();
    const before = real.written.length;
    screen.stdout.write('\x1b[2J\x1b[3A\x1b[?25lx');
    expect(real.written.slice(before)).toBe('\x1b[2J\x1b[3A\x1b[?25lx');
  });

  it("swallows what ink writes after leave (its exit hook's last frame), still calling the write's callback", async () => {
    const { real, screen } = start();
    screen.leave();
    const after = real.written;
    const acknowledged = new Promise<void>((resolve) => screen.stdout.write('', () => resolve()));
    screen.stdout.write('\x1b[2Jlast frame');
    await acknowledged;
    expect(real.written).toBe(after);
  });

  it("is the terminal for everything but writing: size, isTTY, and 'resize' listeners", () => {
    const { real, screen } = start();
    let resized = 0;
    const onResize = () => resized++;
    screen.stdout.on('resize', onResize);
    real.emit('resize');
    screen.stdout.off('resize', onResize);
    real.emit('resize');
    expect(resized).toBe(1);
    expect([screen.stdout.columns, screen.stdout.rows, screen.stdout.isTTY]).toEqual([80, 24, true]);
  });

  it("leaves at the process's exit when the caller could not, and stops listening once left", () => {
    const exits = process.listenerCount('exit');
    const { real } = start();
    expect(process.listenerCount('exit')).toBe(exits + 1);
    // Ours alone, not the test runner's.
    (process.listeners('exit').at(-1) as () => void)();
    expect(real.written.endsWith(LEAVE_ALT_SCREEN)).toBe(true);
    expect(process.listenerCount('exit')).toBe(exits);
  });
});
