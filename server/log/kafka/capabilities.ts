// What eoscope cannot do on a real Kafka cluster through kafkajs 2.2.4, and why.

import type { LogCapabilities } from '../capabilities.ts'

export const KAFKA_CAPABILITIES: LogCapabilities = {
  backend: 'kafka',
  unavailable: {
    // exactly_once_v2 is offered: the transactional offset commit carries the group generation and
    // member id (TxnOffsetCommit v3) and a read_committed owner fetches offsets with require_stable
    // (OffsetFetch v7), both sent by kip447/ over kafkajs's connections (KIP-447).
    'drop-acks':
      "dropping an ack needs the worker processes behind eoscope's ack-drop proxy (a lab or `eoscope run " +
      '--drop-acks N` on a plaintext or SASL_PLAINTEXT cluster); this connection reaches the brokers directly',
    'hanging-transaction':
      'a Kafka broker refuses a transactional write its coordinator does not know ' +
      '(transaction.partition.verification.enable, KIP-890): a hanging transaction is made there only by ' +
      'switching that broker setting off, which eoscope does not do to a cluster',
  },
}

/**
 * How the worker processes reach the cluster: directly, or through the ack-drop proxy
 * (server/log/kafka/proxy/ack-drop-proxy.ts), which can lose a produce ack after the broker
 * appended the batch. The proxy reads Kafka's frames, so it cannot sit inside a TLS connection.
 */
export type AckRoute = 'direct' | 'ack-drop-proxy'

/** Why the ack-drop proxy cannot be used for this client, or null. */
export function ackDropProxyRefusal(client: { ssl?: unknown }): string | null {
  return client.ssl
    ? "dropping an ack is unavailable on a TLS connection: the ack-drop proxy reads Kafka's frames and cannot " +
        'sit inside TLS; use a plaintext or SASL_PLAINTEXT listener for this fault'
    : null
}

/** The route a client may take: the proxy when asked for and the connection is not TLS. */
export function ackRouteFor(client: { ssl?: unknown }, wanted: AckRoute): AckRoute {
  return wanted === 'ack-drop-proxy' && ackDropProxyRefusal(client) === null ? 'ack-drop-proxy' : 'direct'
}

/** Why broker faults are unavailable when no directory of eoscope's own local brokers is known. */
export const LOCAL_BROKERS_UNSET =
  'killing and restarting a broker needs a cluster started by scripts/kafka-cluster.sh on this machine, named ' +
  'by KAFKA_CLUSTER_DIR (its KAFKA_DIR): eoscope acts only on its own brokers'

/**
 * The Kafka connection's capabilities for a route: the ack-drop proxy offers drop-acks; TLS says
 * why it cannot. Broker faults need the directory of the brokers scripts/kafka-cluster.sh started.
 */
export function kafkaCapabilities(
  route: AckRoute,
  client: { ssl?: unknown } = {},
  localBrokersDir: string | null = null,
): LogCapabilities {
  const { 'drop-acks': directRefusal, ...rest } = KAFKA_CAPABILITIES.unavailable
  const unavailable = localBrokersDir === null ? { ...rest, 'broker-faults': LOCAL_BROKERS_UNSET } : rest
  if (route === 'ack-drop-proxy') return { backend: 'kafka', unavailable }
  return {
    backend: 'kafka',
    unavailable: { ...unavailable, 'drop-acks': ackDropProxyRefusal(client) ?? directRefusal! },
  }
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
export function kafkaGroupTimeouts(sessionTimeoutMs?: number): {
  sessionTimeoutMs: number
  heartbeatIntervalMs: number
} {
  const session = sessionTimeoutMs ?? KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs
  return {
    sessionTimeoutMs: session,
    heartbeatIntervalMs: Math.max(1, Math.min(KAFKA_GROUP_TIMEOUTS.heartbeatIntervalMs, Math.floor(session / 5))),
  }
}

/** A config with Kafka's group timeouts: its heartbeat follows its session timeout (kafkaGroupTimeouts). */
export function withKafkaGroupTimeouts<C extends { 'session.timeout.ms': number; 'heartbeat.interval.ms': number }>(
  config: C,
  sessionTimeoutMs: number = config['session.timeout.ms'],
): C {
  const t = kafkaGroupTimeouts(sessionTimeoutMs)
  return { ...config, 'session.timeout.ms': t.sessionTimeoutMs, 'heartbeat.interval.ms': t.heartbeatIntervalMs }
}
