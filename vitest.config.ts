import { defineConfig } from 'vitest/config';

// Unit and integration tests live next to the code as *.test.ts; e2e/ is Playwright's.
export default defineConfig({
  test: {
    include: [
      'server/**/*.test.ts',
      'electron/**/*.test.ts',
      'renderer/**/*.test.{ts,tsx}',
      'bin/**/*.test.ts',
      'scripts/**/*.test.ts',
      'eval/**/*.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
