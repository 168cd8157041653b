// The embedded log is eoscope's own broker: every fault can be placed at an exact step.

import type { LogCapabilities } from '../capabilities.ts'

export const EMBEDDED_CAPABILITIES: LogCapabilities = {
  backend: 'embedded',
  unavailable: {
    'broker-faults':
      "the embedded log runs inside eoscope's own process: it has no brokers to kill or restart; run the lab " +
      'on a cluster started by scripts/kafka-cluster.sh (EOSCOPE_BACKEND=kafka, KAFKA_BROKERS, ' +
      'KAFKA_CLUSTER_DIR)',
  },
}
