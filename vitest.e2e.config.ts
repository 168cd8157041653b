import { defineConfig } from 'vitest/config'

// Browser tests: the real server on a free port, driven through Debian's chromium.
export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.ts'],
    testTimeout: 90_000,
    hookTimeout: 240_000,
    fileParallelism: false,
    pool: 'forks',
  },
})
