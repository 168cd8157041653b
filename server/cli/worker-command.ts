// `eoscope worker`: one worker process on a Kafka cluster (see server/lab/kafka/kafka-worker.ts).
// The lab spawns these locally; started by hand on other machines against the same cluster and
// application.id, they join the same group and show up in the same telemetry.

import { PROCESSING_GUARANTEES, type ProcessingGuarantee, streamsConfigFor, validateStreamsConfig } from '../../lib/streams-config.ts'
import { guaranteeRefusal } from '../log/capabilities.ts'
import { KAFKA_CAPABILITIES } from '../log/kafka/capabilities.ts'
import { hostname } from 'node:os'
import { parseFlags, UsageError } from './args.ts'
import { describeKafkaSecurity, type Env, type KafkaSecurity, KafkaSecurityConfigException, kafkaSecurityFromEnv } from '../log/kafka/client-security.ts'

export const WORKER_USAGE = `eoscope worker --brokers HOST:PORT[,HOST:PORT] --application-id ID [--slot-id SLOT] [--worker-id ID]
            [--guarantee at_least_once|exactly_once] [--commit-interval-ms N] [--session-timeout-ms N]
            [--transaction-timeout-ms N] [--idempotence on|off] [--partitions N] [--max-poll-records N]
  eoscope worker --brokers HOST:PORT[,HOST:PORT] --follow-lab [--slot-id SLOT] [--worker-id ID]
  --follow-lab joins the application the dashboard's Kafka lab runs (read from the eoscope-labs topic), with its
  settings, and starts again with the next one whenever the lab resets or changes a setting
  kafka TLS and SASL come from the environment: KAFKA_SSL, KAFKA_SSL_CA_FILE, KAFKA_SSL_CERT_FILE, KAFKA_SSL_KEY_FILE,
  KAFKA_SSL_REJECT_UNAUTHORIZED, KAFKA_SASL_MECHANISM (plain|scram-sha-256|scram-sha-512), KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD`

const SPEC = {
  brokers: { kind: 'string' },
  'application-id': { kind: 'string' },
  'slot-id': { kind: 'string' },
  'worker-id': { kind: 'string' },
  guarantee: { kind: 'string', choices: PROCESSING_GUARANTEES },
  'commit-interval-ms': { kind: 'int', min: 1, max: 600_000 },
  'session-timeout-ms': { kind: 'int', min: 10, max: 600_000 },
  'transaction-timeout-ms': { kind: 'int', min: 1, max: 900_000 },
  idempotence: { kind: 'string', choices: ['on', 'off'] },
  partitions: { kind: 'int', min: 1, max: 256 },
  'max-poll-records': { kind: 'int', min: 1, max: 100_000 },
  'drop-acks': { kind: 'int', min: 0 },
  'follow-lab': { kind: 'bool' },
} as const

/** How long a follower whose worker failed waits for the lab's next application before it gives up. */
const FOLLOW_GRACE_MS = 15_000

/** Flags a follower takes from the lab instead. */
const LAB_SETTINGS = ['application-id', 'guarantee', 'commit-interval-ms', 'session-timeout-ms', 'transaction-timeout-ms', 'idempotence', 'partitions', 'max-poll-records'] as const

export function parseBrokers(s: string | undefined): string[] {
  const brokers = (s ?? '').split(',').map((b) => b.trim()).filter((b) => b.length > 0)
  if (brokers.length === 0) throw new UsageError('--brokers HOST:PORT is required for the kafka backend')
  for (const b of brokers) if (!/^[^\s:]+:\d{1,5}$/.test(b)) throw new UsageError(`--brokers: ${JSON.stringify(b)} is not HOST:PORT`)
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

export async function workerCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const f = parseFlags(argv, SPEC)
  const brokers = parseBrokers(f.brokers as string | undefined)
  const security = kafkaSecurityForCommand()
  if (f['drop-acks'] !== undefined) throw new UsageError(KAFKA_CAPABILITIES.unavailable['drop-acks']!)
  if (f['follow-lab'] === true) {
    const given = LAB_SETTINGS.filter((k) => f[k] !== undefined)
    if (given.length > 0) throw new UsageError(`--follow-lab takes the application and its settings from the lab: drop ${given.map((k) => `--${k}`).join(', ')}`)
    const slotId = (f['slot-id'] as string | undefined) ?? hostname()
    const workerId = (f['worker-id'] as string | undefined) ?? `${slotId}-${process.pid}`
    return followLab({ brokers, security, slotId, workerId }, out)
  }
  const appId = f['application-id'] as string | undefined
  if (!appId) throw new UsageError('--application-id is required (or --follow-lab)')
  const guarantee = (f.guarantee as ProcessingGuarantee | undefined) ?? 'exactly_once'
  const refused = guaranteeRefusal(KAFKA_CAPABILITIES, guarantee)
  if (refused !== null) throw new UsageError(refused)
  if (f.idempotence === 'off' && guarantee !== 'at_least_once') throw new UsageError(`--idempotence off is only allowed with --guarantee at_least_once`)
  const config = streamsConfigFor(guarantee, {
    applicationId: appId,
    commitIntervalMs: f['commit-interval-ms'] as number | undefined,
    transactionTimeoutMs: f['transaction-timeout-ms'] as number | undefined,
    sessionTimeoutMs: f['session-timeout-ms'] as number | undefined,
    maxPollRecords: f['max-poll-records'] as number | undefined,
    idempotence: f.idempotence !== 'off',
  })
  try {
    validateStreamsConfig(config)
  } catch (e) {
    throw new UsageError((e as Error).message)
  }
  const slotId = (f['slot-id'] as string | undefined) ?? `worker-${process.pid}`
  const workerId = (f['worker-id'] as string | undefined) ?? `${slotId}-${process.pid}`
  const { KafkaWorkerProcess } = await import('../lab/kafka/kafka-worker.ts')
  const proc = new KafkaWorkerProcess({
    client: { brokers, clientId: `eoscope-${workerId}`, ...security },
    config,
    slotId,
    workerId,
    partitions: (f.partitions as number | undefined) ?? 6,
  })
  out(`eoscope worker ${workerId} (slot ${slotId}, pid ${process.pid}): ${guarantee} on ${brokers.join(',')} (${describeKafkaSecurity(security)}), application.id ${appId}`)
  return proc.run()
}

/**
 * A worker that follows the dashboard's Kafka lab: it joins the application the lab published
 * last, and when the lab publishes another (a reset, a new guarantee or commit.interval.ms) it
 * stops cleanly and joins that one; when the lab shuts down it stops and waits for the next.
 * SIGTERM or SIGINT ends it; a worker that fails while the lab stays the same ends it too (its
 * exit status: a supervisor such as docker compose's restart policy starts it again).
 */
async function followLab(o: { brokers: string[]; security: KafkaSecurity; slotId: string; workerId: string }, out: (s: string) => void): Promise<number> {
  const { KafkaConnection } = await import('../log/kafka/kafka-connection.ts')
  const { KafkaWorkerProcess } = await import('../lab/kafka/kafka-worker.ts')
  const { configOf, latestLab, nextLab } = await import('../lab/kafka/lab-directory.ts')
  const directory = new KafkaConnection({ brokers: o.brokers, clientId: `eoscope-${o.workerId}-directory`, ...o.security })
  let terminating = false
  let current: { stop(): void } | null = null
  const onTerm = () => {
    terminating = true
    current?.stop()
  }
  process.on('SIGTERM', onTerm)
  process.on('SIGINT', onTerm)
  try {
    let { descriptor: d, nextOffset } = await latestLab(directory)
    while (!terminating) {
      if (d === null) {
        out(`eoscope worker ${o.workerId}: no lab runs on ${o.brokers.join(',')} now; waiting for one`)
        const n = await nextLab(directory, null, nextOffset, () => terminating)
        if (!n) break
        ;({ descriptor: d, nextOffset } = n)
        continue
      }
      const lab = d
      // The lab creates its topics before it publishes them: a follower never creates them (a lab that is gone stays gone).
      const proc = new KafkaWorkerProcess({ client: { brokers: o.brokers, clientId: `eoscope-${o.workerId}`, ...o.security }, config: configOf(lab), slotId: o.slotId, workerId: o.workerId, partitions: lab.partitions, createTopics: false })
      current = proc
      out(`eoscope worker ${o.workerId} (pid ${process.pid}) follows the lab: ${lab['processing.guarantee']}, commit.interval.ms ${lab['commit.interval.ms']}, application.id ${lab.applicationId} on ${o.brokers.join(',')} (${describeKafkaSecurity(o.security)})`)
      let next: Awaited<ReturnType<typeof nextLab>> = null
      // After the worker ends, the directory is still watched for a while: a lab that resets or
      // shuts down deletes its topics, which may fail this worker just before the news arrives.
      let watchUntil = Number.POSITIVE_INFINITY
      const watching = nextLab(directory, lab, nextOffset, () => terminating || Date.now() > watchUntil).then((n) => {
        next = n
        if (n) proc.stop()
      })
      const code = await proc.run().catch((e: unknown) => {
        out(`eoscope worker ${o.workerId}: ${e instanceof Error ? e.message : String(e)}`)
        return 1
      })
      current = null
      watchUntil = Date.now() + (code === 0 ? 0 : FOLLOW_GRACE_MS)
      await watching
      const moved = next as Awaited<ReturnType<typeof nextLab>>
      if (moved === null) return terminating ? 0 : code
      if (code !== 0) out(`eoscope worker ${o.workerId}: the worker on ${lab.applicationId} ended with status ${code} as the lab moved on`)
      ;({ descriptor: d, nextOffset } = moved)
    }
    return 0
  } finally {
    process.off('SIGTERM', onTerm)
    process.off('SIGINT', onTerm)
    await directory.close()
  }
}
