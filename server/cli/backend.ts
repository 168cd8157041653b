// What the commands share about a backend: its capabilities (every refusal's one source, server/log),
// the brokers and the Kafka client's TLS and SASL from the environment.

import type { LogCapabilities } from '../log/capabilities.ts'
import { EMBEDDED_CAPABILITIES } from '../log/embedded/capabilities.ts'
import { type AckRoute, kafkaCapabilities } from '../log/kafka/capabilities.ts'
import {
  type Env,
  type KafkaSecurity,
  KafkaSecurityConfigException,
  kafkaSecurityFromEnv,
} from '../log/kafka/client-security.ts'
import { UsageError } from './flags.ts'

export const BACKENDS = ['embedded', 'kafka'] as const
export type Backend = (typeof BACKENDS)[number]

/**
 * A backend's capabilities; on Kafka they depend on the route to the brokers and on TLS
 * (the ack-drop proxy cannot sit inside TLS).
 */
export function capabilitiesOf(
  backend: Backend,
  kafka: { route: AckRoute; client: { ssl?: unknown } } = { route: 'direct', client: {} },
): LogCapabilities {
  return backend === 'kafka' ? kafkaCapabilities(kafka.route, kafka.client) : EMBEDDED_CAPABILITIES
}

export function parseBrokers(s: string | undefined): string[] {
  const brokers = (s ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0)
  if (brokers.length === 0) throw new UsageError('--brokers HOST:PORT is required for the kafka backend')
  for (const b of brokers)
    if (!/^[^\s:]+:\d{1,5}$/.test(b)) throw new UsageError(`--brokers: ${JSON.stringify(b)} is not HOST:PORT`)
  return brokers
}

/**
 * TLS and SASL from the environment (KAFKA_SSL*, KAFKA_SASL_*; never from flags, so no password
 * shows in `ps`); malformed or partial settings are a usage error.
 */
export function kafkaSecurityForCommand(env: Env = process.env): KafkaSecurity {
  try {
    return kafkaSecurityFromEnv(env)
  } catch (e) {
    if (e instanceof KafkaSecurityConfigException) throw new UsageError(e.message)
    throw e
  }
}

export const KAFKA_SECURITY_NOTE =
  'Kafka TLS and SASL come from the environment, never from flags: KAFKA_SSL, KAFKA_SSL_CA_FILE, ' +
  'KAFKA_SSL_CERT_FILE, KAFKA_SSL_KEY_FILE, KAFKA_SSL_REJECT_UNAUTHORIZED, KAFKA_SASL_MECHANISM ' +
  '(plain|scram-sha-256|scram-sha-512), KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD.'
