import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    // server/log/kafka/kafka-connection.test.ts and proxy/ack-drop-proxy.test.ts need a
    // broker (vitest.kafka.config.ts); the other specs there are pure and run here too.
    exclude: [
      '**/node_modules/**',
      'e2e/**',
      'server/log/kafka/kafka-connection.test.ts',
      'server/log/kafka/proxy/ack-drop-proxy.test.ts',
      'server/log/kafka/kip447/kip447.test.ts',
      'server/log/kafka/kip664/kip664.test.ts',
      'server/lab/scenarios/**',
      'scratch/**',
    ],
    // An overall bound, generous for a busy machine: the waits inside a test are on progress.
    testTimeout: 120_000,
    // expect.poll without a timeout of its own waits for a state (generous: a busy machine), not 1 s.
    expect: { poll: { timeout: 60_000, interval: 50 } },
  },
})
