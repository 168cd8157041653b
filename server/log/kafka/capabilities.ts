// What eoscope cannot do on a real Kafka cluster through kafkajs 2.2.4, and why.

import type { LogCapabilities } from '../capabilities.ts'

export const KAFKA_CAPABILITIES: LogCapabilities = {
  backend: 'kafka',
  unavailable: {
    /*
     * exactly_once_v2 fences zombies through the consumer group generation carried on the
     * transactional offset commit (KIP-447: TxnOffsetCommit v3 with generation id and member id).
     * kafkajs 2.2.4 sends TxnOffsetCommit v0/v1 without them, so a zombie worker's offsets would
     * not be fenced by the group: the Kafka backend refuses exactly_once_v2 instead of pretending.
     */
    exactly_once_v2:
      'exactly_once_v2 is unavailable on the Kafka backend: it needs the consumer group generation and member id on the transactional offset commit (KIP-447, TxnOffsetCommit v3), and kafkajs 2.2.4 sends TxnOffsetCommit v0/v1 without them, so zombie workers would not be fenced. Use exactly_once (one transactional producer per task).',
    'drop-acks':
      'dropping an ack is unavailable on the Kafka backend: a real broker cannot be made to drop a produce acknowledgement; use the embedded backend for that fault',
    scenarios:
      'the guided scenarios run on the embedded log, where a fault can be placed at an exact step inside the broker; on Kafka run the same faults with eoscope run --backend kafka (--kill-at-step, --kill-every)',
  },
}
