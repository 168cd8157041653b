// Tests against a real Kafka broker: `npm run test:kafka`. The global setup starts the local
// broker (scripts/kafka-broker.sh) or uses KAFKA_BROKERS, and makes the production build once.
import { defineConfig } from 'vitest/config'

const FILES = ['server/log/kafka/**/*.test.ts', 'e2e/kafka/**/*.test.ts']
/**
 * Files that run alone, after the others: the broker outage stops the shared broker, the cluster
 * test starts three more brokers, and the scenarios measure what another file's load would blur
 * (a pause outlasting a session, throughput at two commit intervals).
 */
const ALONE = ['e2e/kafka/outage-kafka.test.ts', 'e2e/kafka/cluster-kafka.test.ts', 'e2e/kafka/scenarios-kafka.test.ts']

export default defineConfig({
  test: {
    // Each project names its files (its lists add to these). Broker failover on a three-node cluster
    // takes about ten minutes on two cores: its own command, npm run test:failover
    // (vitest.failover.config.ts), outside npm test's time budget.
    exclude: ['**/node_modules/**', 'e2e/kafka/broker-failover-kafka.test.ts'],
    globalSetup: ['server/log/kafka/broker-global-setup.ts', 'e2e/build-global-setup.ts'],
    // An overall bound: the waits inside a test are on progress, with bounds from session.timeout.ms.
    testTimeout: 300_000,
    hookTimeout: 120_000,
    // expect.poll without a timeout of its own waits for a state (generous: a busy machine), not 1 s.
    expect: { poll: { timeout: 120_000, interval: 100 } },
    projects: [
      {
        // Two files at a time on the one broker: most of a file's time is spent waiting on the group
        // (session timeouts, rebalances), not on the CPU.
        extends: true,
        test: { name: 'kafka', include: FILES, exclude: ALONE, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'kafka-alone', include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
})
