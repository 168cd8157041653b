// TLS and SASL for a real cluster, read from the environment: every Kafka client eoscope builds
// (the CLI, the server, and the worker processes the lab spawns, which inherit the environment)
// spreads these settings into its KafkaClientConfig.
//
// Secrets come from the environment only, never from flags: argv shows in `ps`, the environment
// of another user's process does not. Bad or partial input throws KafkaSecurityConfigException
// naming the variable; a client is either configured as asked or not built at all.
//
//   KAFKA_SSL                       true|false|1|0; TLS to the brokers (default false)
//   KAFKA_SSL_CA_FILE               PEM file of the CA(s) to trust instead of Node's defaults
//   KAFKA_SSL_CERT_FILE             PEM client certificate (mutual TLS; needs KAFKA_SSL_KEY_FILE)
//   KAFKA_SSL_KEY_FILE              PEM private key of that certificate
//   KAFKA_SSL_REJECT_UNAUTHORIZED   true|false|1|0; verify the brokers' certificates (default true)
//   KAFKA_SASL_MECHANISM            plain | scram-sha-256 | scram-sha-512
//   KAFKA_SASL_USERNAME             required with a mechanism
//   KAFKA_SASL_PASSWORD             required with a mechanism
//
// Any of the three files turns TLS on; KAFKA_SSL=false together with one of them is refused.

import { readFileSync } from 'node:fs'
import type { ConnectionOptions } from 'node:tls'
import type { SASLOptions } from 'kafkajs'

/** The environment, or any map of variables like it (process.env by default). */
export type Env = Readonly<Record<string, string | undefined>>

/** The part of a KafkaClientConfig that says how to reach a secured cluster. */
export interface KafkaSecurity {
  ssl?: ConnectionOptions | boolean
  sasl?: SASLOptions
}

/** The security settings in the environment are malformed or incomplete: fix them and start again. */
export class KafkaSecurityConfigException extends Error {
  readonly name = 'KafkaSecurityConfigException'
}

export const KAFKA_SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const
export type KafkaSaslMechanism = (typeof KAFKA_SASL_MECHANISMS)[number]

/** Every variable kafkaSecurityFromEnv reads. */
export const KAFKA_SECURITY_VARIABLES = [
  'KAFKA_SSL',
  'KAFKA_SSL_CA_FILE',
  'KAFKA_SSL_CERT_FILE',
  'KAFKA_SSL_KEY_FILE',
  'KAFKA_SSL_REJECT_UNAUTHORIZED',
  'KAFKA_SASL_MECHANISM',
  'KAFKA_SASL_USERNAME',
  'KAFKA_SASL_PASSWORD',
] as const

const TLS_FILES = [
  ['KAFKA_SSL_CA_FILE', 'ca'],
  ['KAFKA_SSL_CERT_FILE', 'cert'],
  ['KAFKA_SSL_KEY_FILE', 'key'],
] as const

/** An unset or empty variable is absent. */
function value(env: Env, name: string): string | undefined {
  const v = env[name]
  return v === undefined || v.trim() === '' ? undefined : v
}

function bool(env: Env, name: string): boolean | undefined {
  const v = value(env, name)
  if (v === undefined) return undefined
  switch (v.trim().toLowerCase()) {
    case 'true':
    case '1':
      return true
    case 'false':
    case '0':
      return false
    default:
      throw new KafkaSecurityConfigException(`${name} must be true, false, 1 or 0; got ${JSON.stringify(v)}`)
  }
}

function pemFile(name: string, path: string): Buffer {
  let content: Buffer
  try {
    content = readFileSync(path)
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e))
    throw new KafkaSecurityConfigException(`${name}: cannot read ${JSON.stringify(path)} (${reason})`)
  }
  if (content.length === 0) throw new KafkaSecurityConfigException(`${name}: ${JSON.stringify(path)} is empty`)
  return content
}

function tlsFromEnv(env: Env): ConnectionOptions | boolean | undefined {
  const enabled = bool(env, 'KAFKA_SSL')
  const rejectUnauthorized = bool(env, 'KAFKA_SSL_REJECT_UNAUTHORIZED')
  const files = TLS_FILES.filter(([name]) => value(env, name) !== undefined)
  if (enabled === false) {
    if (files.length > 0)
      throw new KafkaSecurityConfigException(`${files[0]![0]} is set but KAFKA_SSL is false: unset one of them`)
    if (rejectUnauthorized !== undefined)
      throw new KafkaSecurityConfigException(
        'KAFKA_SSL_REJECT_UNAUTHORIZED is set but KAFKA_SSL is false: unset one of them',
      )
    return undefined
  }
  if (enabled === undefined && files.length === 0) {
    if (rejectUnauthorized !== undefined)
      throw new KafkaSecurityConfigException(
        'KAFKA_SSL_REJECT_UNAUTHORIZED applies to TLS only: set KAFKA_SSL=true as well',
      )
    return undefined
  }
  const hasCert = value(env, 'KAFKA_SSL_CERT_FILE') !== undefined
  const hasKey = value(env, 'KAFKA_SSL_KEY_FILE') !== undefined
  if (hasCert !== hasKey) {
    throw new KafkaSecurityConfigException(
      hasCert
        ? "KAFKA_SSL_CERT_FILE needs KAFKA_SSL_KEY_FILE (the client certificate's private key)"
        : 'KAFKA_SSL_KEY_FILE needs KAFKA_SSL_CERT_FILE (the client certificate)',
    )
  }
  if (files.length === 0 && rejectUnauthorized !== false) return true
  const options: ConnectionOptions = {}
  for (const [name, key] of files) options[key] = pemFile(name, value(env, name)!)
  if (rejectUnauthorized === false) options.rejectUnauthorized = false
  return options
}

function saslFromEnv(env: Env): SASLOptions | undefined {
  const raw = value(env, 'KAFKA_SASL_MECHANISM')
  const username = value(env, 'KAFKA_SASL_USERNAME')
  const password = value(env, 'KAFKA_SASL_PASSWORD')
  if (raw === undefined) {
    if (username !== undefined || password !== undefined) {
      const which = username !== undefined ? 'KAFKA_SASL_USERNAME' : 'KAFKA_SASL_PASSWORD'
      throw new KafkaSecurityConfigException(
        `${which} is set but KAFKA_SASL_MECHANISM is not (${KAFKA_SASL_MECHANISMS.join(', ')})`,
      )
    }
    return undefined
  }
  const mechanism = raw.trim().toLowerCase()
  if (!(KAFKA_SASL_MECHANISMS as readonly string[]).includes(mechanism)) {
    throw new KafkaSecurityConfigException(
      `KAFKA_SASL_MECHANISM must be one of ${KAFKA_SASL_MECHANISMS.join(', ')}; got ${JSON.stringify(raw)}`,
    )
  }
  if (username === undefined)
    throw new KafkaSecurityConfigException(`KAFKA_SASL_MECHANISM is ${mechanism} but KAFKA_SASL_USERNAME is not set`)
  if (password === undefined)
    throw new KafkaSecurityConfigException(`KAFKA_SASL_MECHANISM is ${mechanism} but KAFKA_SASL_PASSWORD is not set`)
  return { mechanism: mechanism as KafkaSaslMechanism, username, password }
}

/**
 * TLS and SASL settings from the environment, to spread into a KafkaClientConfig. Empty when none
 * of the variables is set (a plaintext cluster). Throws KafkaSecurityConfigException on bad or
 * partial input.
 */
export function kafkaSecurityFromEnv(env: Env = process.env): KafkaSecurity {
  const ssl = tlsFromEnv(env)
  const sasl = saslFromEnv(env)
  return { ...(ssl !== undefined ? { ssl } : {}), ...(sasl !== undefined ? { sasl } : {}) }
}

/** A one-line, secret-free description for logs, e.g. "SASL_SSL (scram-sha-512 as alice)". */
export function describeKafkaSecurity(sec: KafkaSecurity): string {
  const tls = sec.ssl !== undefined && sec.ssl !== false
  const protocol = `${sec.sasl ? 'SASL_' : ''}${tls ? 'SSL' : 'PLAINTEXT'}`
  const details: string[] = []
  if (sec.sasl)
    details.push('username' in sec.sasl ? `${sec.sasl.mechanism} as ${sec.sasl.username}` : sec.sasl.mechanism)
  if (tls && typeof sec.ssl === 'object') {
    if (sec.ssl.ca !== undefined) details.push('own CA')
    if (sec.ssl.cert !== undefined) details.push('client certificate')
    if (sec.ssl.rejectUnauthorized === false) details.push('broker certificates NOT verified')
  }
  return details.length > 0 ? `${protocol} (${details.join('; ')})` : protocol
}
