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

/**
 * The consumer group's timeouts on Kafka when the user sets none. The embedded log's demo values
 * (session.timeout.ms 1000, heartbeat 200) are too short for a real cluster: a worker process that
 * the machine starves for a second (GC, a busy CPU) is removed from the group, and a group whose
 * members keep being removed commits nothing. 10 s is the shortest session a Kafka engineer would
 * run a lab with (Kafka's default is 45 s); it is what detecting a killed worker costs. A heartbeat
 * a tenth of the session leaves nine missed heartbeats before expiry, and members hear of a
 * rebalance within a second. Both lie within the broker's group.min/max.session.timeout.ms
 * (500 ms and Kafka's 30 min in scripts/kafka/server.properties.template; 6 s and 30 min by default).
 */
export const KAFKA_GROUP_TIMEOUTS = { sessionTimeoutMs: 10_000, heartbeatIntervalMs: 1_000 } as const

/**
 * session.timeout.ms and heartbeat.interval.ms of a Kafka worker: the session the user set, or
 * KAFKA_GROUP_TIMEOUTS's; the heartbeat a fifth of the session (200 ms for a 1 s session, as on
 * the embedded log), at most KAFKA_GROUP_TIMEOUTS's.
 */
export function kafkaGroupTimeouts(sessionTimeoutMs?: number): { sessionTimeoutMs: number; heartbeatIntervalMs: number } {
  const session = sessionTimeoutMs ?? KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs
  return { sessionTimeoutMs: session, heartbeatIntervalMs: Math.max(1, Math.min(KAFKA_GROUP_TIMEOUTS.heartbeatIntervalMs, Math.floor(session / 5))) }
}

/** A config with Kafka's group timeouts: its heartbeat follows its session timeout (kafkaGroupTimeouts). */
export function withKafkaGroupTimeouts<C extends { 'session.timeout.ms': number; 'heartbeat.interval.ms': number }>(config: C, sessionTimeoutMs: number = config['session.timeout.ms']): C {
  const t = kafkaGroupTimeouts(sessionTimeoutMs)
  return { ...config, 'session.timeout.ms': t.sessionTimeoutMs, 'heartbeat.interval.ms': t.heartbeatIntervalMs }
}
