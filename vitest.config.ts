import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // One graphql module for our code and for Pothos/Yoga (which Node loads as CommonJS): no "another realm" errors.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // A worker runs its files one after another in one module registry: the service's ~1,600 modules are imported
    // once per worker, not once per file (the import phase fell from ~200 s to ~22 s of a run, the run from ~490 s to
    // ~340 s). What a file must not share it does not keep in modules: each starts its own app, database and servers,
    // and restores what it spies on.
    isolate: false,
    testTimeout: 60_000,
    // What a poll waits for (a delivery, a page's update) can take seconds on a loaded 2-core machine, not one.
    expect: { poll: { timeout: 5000 } },
    hookTimeout: 120_000,
    fileParallelism: true,
    maxWorkers: 2,
  },
});
