import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module) copies without an exports map. Node, and so
    // every dependency (Pothos, yoga), loads the CJS one; vite would hand our sources the ESM one,
    // and two copies break `instanceof GraphQLError` and schema building. Use Node's choice.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The machine has two cores; the emulator and gateway run in-process per test file.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
