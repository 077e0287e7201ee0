import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/** Stress tests (test/stress): hostile-input property tests; run with `vitest run -c vitest.stress.config.ts`. */
export default defineConfig({
  resolve: {
    // One graphql module for our code and for Pothos/Yoga (which Node loads as CommonJS): no "another realm" errors.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/stress/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    testTimeout: 600_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    maxWorkers: 1,
  },
});
