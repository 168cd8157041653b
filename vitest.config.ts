import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**', 'e2e/**', 'server/log/kafka/**', 'server/lab/scenarios/**', 'scratch/**'],
    testTimeout: 30_000,
  },
})
