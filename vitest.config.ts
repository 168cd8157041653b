import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    // server/log/kafka/kafka-connection.test.ts needs a broker (vitest.kafka.config.ts); the other
    // specs there are pure and run here too.
    exclude: ['**/node_modules/**', 'e2e/**', 'server/log/kafka/kafka-connection.test.ts', 'server/lab/scenarios/**', 'scratch/**'],
    // An overall bound, generous for a busy machine: the waits inside a test are on progress.
    testTimeout: 120_000,
  },
})
