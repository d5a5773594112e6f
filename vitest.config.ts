import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The machine has two cores; the emulator and gateway run in-process per test file.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
