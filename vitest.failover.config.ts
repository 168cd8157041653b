// Broker failover on a local three-broker cluster: `npm run test:failover`. The file starts and stops
// its own cluster (scripts/kafka-cluster.sh); it needs Java 17+ and Maven, like the Kafka suite.
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['e2e/kafka/broker-failover-kafka.test.ts'],
    testTimeout: 900_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
})
