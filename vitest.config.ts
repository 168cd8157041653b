import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**', 'e2e/**', 'server/log/kafka/**'],
    testTimeout: 30_000,
  },
})
