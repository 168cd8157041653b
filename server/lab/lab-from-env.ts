// Which lab the server runs, from its environment: the embedded log (default), or a Kafka
// cluster with EOSCOPE_BACKEND=kafka and KAFKA_BROKERS=host:port[,host:port] (SASL and TLS from
// the KAFKA_SASL_* and KAFKA_SSL_* variables, see client-security.ts), its workers a network away
// from the brokers with EOSCOPE_NETWORK_LATENCY_MS (and EOSCOPE_NETWORK_JITTER_MS). A bad value is
// refused before anything starts.

import type { NetworkDelay } from '../log/kafka/proxy/ack-drop-proxy.ts'

import type { LabController } from './lab-controller.ts'

export type LabChoice =
  | { ok: true; backend: 'embedded' }
  | {
      ok: true
      backend: 'kafka'
      brokers: string[]
      security: import('../log/kafka/client-security.ts').KafkaSecurity
      describe: string
      localBrokersDir?: string | null
      /** The network between the lab's worker processes and the brokers (a delaying proxy), if any. */
      network?: NetworkDelay
    }
  | { ok: false; error: string }

type Env = Readonly<Record<string, string | undefined>>

/** How far, one way, the network variables put the workers from the brokers: a number of ms, 0 to 10000. */
function msFromEnv(env: Env, name: string): { ok: true; ms: number } | { ok: false; error: string } {
  const raw = (env[name] ?? '').trim()
  if (raw === '') return { ok: true, ms: 0 }
  const ms = Number(raw)
  if (!/^\d+(\.\d+)?$/.test(raw) || !(ms <= 10_000))
    return { ok: false, error: `${name} must be a number of ms from 0 to 10000, got ${JSON.stringify(env[name])}` }
  return { ok: true, ms }
}

/**
 * EOSCOPE_NETWORK_LATENCY_MS and EOSCOPE_NETWORK_JITTER_MS: a one-way delay each way between the
 * workers and the brokers, with a jitter from [0, JITTER) (seed 1), as `eoscope run` and `eoscope
 * sweep` take it with --network-latency-ms; null: none.
 */
function networkFromEnv(env: Env): { ok: true; network: NetworkDelay | null } | { ok: false; error: string } {
  const latency = msFromEnv(env, 'EOSCOPE_NETWORK_LATENCY_MS')
  if (!latency.ok) return latency
  const jitter = msFromEnv(env, 'EOSCOPE_NETWORK_JITTER_MS')
  if (!jitter.ok) return jitter
  if (latency.ms === 0 && jitter.ms === 0) return { ok: true, network: null }
  const delay = { latencyMs: latency.ms, jitterMs: jitter.ms }
  return { ok: true, network: { request: delay, response: delay, seed: 1 } }
}

export async function labChoiceFromEnv(env: Env): Promise<LabChoice> {
  const backend = (env.EOSCOPE_BACKEND ?? '').trim() || 'embedded'
  const network = networkFromEnv(env)
  if (!network.ok) return network
  if (backend === 'embedded' && network.network !== null)
    return {
      ok: false,
      error:
        'EOSCOPE_NETWORK_LATENCY_MS and EOSCOPE_NETWORK_JITTER_MS need EOSCOPE_BACKEND=kafka (the embedded log ' +
        'has its latency model)',
    }
  if (backend === 'embedded') return { ok: true, backend }
  if (backend !== 'kafka')
    return { ok: false, error: `EOSCOPE_BACKEND must be embedded or kafka, got ${JSON.stringify(env.EOSCOPE_BACKEND)}` }
  const brokers = (env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0)
  if (brokers.length === 0)
    return {
      ok: false,
      error:
        'EOSCOPE_BACKEND=kafka needs KAFKA_BROKERS=host:port[,host:port] (scripts/kafka-broker.sh start runs ' +
        'one on 127.0.0.1:19092)',
    }
  const bad = brokers.find((b) => !/^[^\s:]+:\d{1,5}$/.test(b))
  if (bad !== undefined) return { ok: false, error: `KAFKA_BROKERS: ${JSON.stringify(bad)} is not host:port` }
  const { kafkaSecurityFromEnv, describeKafkaSecurity } = await import('../log/kafka/client-security.ts')
  try {
    const security = kafkaSecurityFromEnv(env)
    // KAFKA_CLUSTER_DIR: the directory of a cluster scripts/kafka-cluster.sh started here (broker Kill and Restart).
    const localBrokersDir = (env.KAFKA_CLUSTER_DIR ?? '').trim() || null
    if (network.network !== null) {
      const { ackDropProxyRefusal } = await import('../log/kafka/capabilities.ts')
      const refused = ackDropProxyRefusal(security)
      if (refused !== null)
        return {
          ok: false,
          error: `EOSCOPE_NETWORK_LATENCY_MS puts the workers behind eoscope's proxy, which cannot: ${refused}`,
        }
    }
    return {
      ok: true,
      backend: 'kafka',
      brokers,
      security,
      describe: describeKafkaSecurity(security),
      localBrokersDir,
      ...(network.network === null ? {} : { network: network.network }),
    }
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) }
  }
}

/**
 * The first broker that accepts a TCP connection within timeoutMs, or null: a quick
 * check before a lab is built on the cluster.
 */
export async function firstReachableBroker(brokers: readonly string[], timeoutMs = 3_000): Promise<string | null> {
  const { connect } = await import('node:net')
  for (const b of brokers) {
    const i = b.lastIndexOf(':')
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect({ host: b.slice(0, i), port: Number(b.slice(i + 1)) })
      s.setTimeout(timeoutMs)
      s.once('connect', () => {
        s.destroy()
        resolve(true)
      })
      s.once('error', () => resolve(false))
      s.once('timeout', () => {
        s.destroy()
        resolve(false)
      })
    })
    if (ok) return b
  }
  return null
}

export async function startLab(choice: LabChoice & { ok: true }): Promise<LabController> {
  if (choice.backend === 'embedded') {
    const { createLab } = await import('./lab.ts')
    return createLab()
  }
  const { createKafkaLab } = await import('./kafka-lab.ts')
  return createKafkaLab({
    client: { brokers: choice.brokers, clientId: 'eoscope', ...choice.security },
    localBrokersDir: choice.localBrokersDir ?? null,
    ...(choice.network === undefined ? {} : { network: choice.network }),
  })
}
