import { defineConfig } from 'vitest/config'

// Browser tests: the real server on a free port, driven through Debian's chromium.
export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.ts'],
    // An overall bound: the waits inside a test fail on their own when the lab stops making progress.
    testTimeout: 600_000,
    hookTimeout: 240_000,
    // expect.poll without a timeout of its own waits for a state (generous: a busy machine), not 1 s.
    expect: { poll: { timeout: 120_000, interval: 100 } },
    fileParallelism: false,
    pool: 'forks',
  },
})
