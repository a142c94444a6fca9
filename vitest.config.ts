import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 20_000,
    globalSetup: ['test/helpers/tmpdir-setup.ts'],
    hookTimeout: 30_000,
    // CI has 2 cores; forks keep native better-sqlite3 handles isolated per file.
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: on CI's two, one file at a time (318 s).
    // Two at a time take 194–201 s there; the tests that time a child process allow for a busy machine.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
