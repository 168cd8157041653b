// Tests against a real Kafka broker: `npm run test:kafka`. The global setup starts the local
// broker (scripts/kafka-broker.sh) or uses KAFKA_BROKERS.
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['server/log/kafka/**/*.test.ts', 'e2e/kafka/**/*.test.ts'],
    // Broker failover on a three-node cluster takes about ten minutes on two cores: its own command,
    // npm run test:failover (vitest.failover.config.ts), outside npm test's time budget.
    exclude: ['**/node_modules/**', 'e2e/kafka/broker-failover-kafka.test.ts'],
    globalSetup: ['server/log/kafka/broker-global-setup.ts'],
    // An overall bound: the waits inside a test are on progress, with bounds from session.timeout.ms.
    testTimeout: 300_000,
    hookTimeout: 120_000,
    // expect.poll without a timeout of its own waits for a state (generous: a busy machine), not 1 s.
    expect: { poll: { timeout: 120_000, interval: 100 } },
    // One broker on two cores: one test file at a time.
    fileParallelism: false,
  },
})
