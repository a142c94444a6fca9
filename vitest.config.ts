import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // CI has 2 cores; forks keep native better-sqlite3 handles isolated per file.
    pool: 'forks',
  },
});
