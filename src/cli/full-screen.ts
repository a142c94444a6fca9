import { enterFullScreen, type FullScreen } from '../tui/wire/screen.js';
import type { Io } from './io.js';

// The dashboard's commands (tui, watch) on the terminal's alternate screen. What they say on stderr
// meanwhile (rejected lines, unusable inputs, why a guard stopped) would be drawn on that screen and
// vanish with it: it is held, and said once the user's screen is back.

export interface FullScreenRun {
  screen: FullScreen;
  /** `io` whose stderr is held while the alternate screen shows. */
  io: Io;
  /** Leaves the alternate screen and says what was held; once (later calls do nothing). */
  restore(): void;
}

export function fullScreenRun(io: Io): FullScreenRun {
  const screen = enterFullScreen();
  const held: string[] = [];
  let restored = false;
  return {
    screen,
    io: { ...io, err: (s) => void (restored ? io.err(s) : held.push(s)) },
    restore() {
      screen.leave();
      restored = true;
      for (const s of held.splice(0)) io.err(s);
    },
  };
}
