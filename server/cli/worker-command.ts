// `eoscope worker`: one worker process on a Kafka cluster (see server/runtime/kafka/kafka-worker.ts).
// The lab spawns these locally; started by hand on other machines against the same cluster and
// application.id, they join the same group and show up in the same telemetry.

import {
  AT_MOST_ONCE_NOTE,
  isExactlyOnce,
  PROCESSING_GUARANTEES,
  SETTINGS,
  streamsConfigFor,
  validateStreamsConfig,
} from '../../lib/streams-config.ts'
import { KAFKA_CAPABILITIES, KAFKA_GROUP_TIMEOUTS, withKafkaGroupTimeouts } from '../log/kafka/capabilities.ts'
import { hostname } from 'node:os'
import { type CommandSpec, type FlagValues, UsageError } from './flags.ts'
import { describeKafkaSecurity, type KafkaSecurity } from '../log/kafka/client-security.ts'
import { KAFKA_SECURITY_NOTE, kafkaSecurityForCommand, parseBrokers } from './backend.ts'
import { requireCapability, requireGuarantee } from '../log/capabilities.ts'

export const WORKER = {
  name: 'worker',
  summary:
    "one worker process on a Kafka cluster, a member of the application.id's group that processes its tasks; " +
    'the lab spawns these locally, and started by hand on other machines they join the same group and telemetry',
  flags: {
    brokers: { type: 'string', value: 'HOST:PORT[,HOST:PORT]', meaning: 'the Kafka cluster (required)' },
    'application-id': {
      type: 'string',
      value: 'ID',
      meaning: 'application.id: the group and every topic (required, unless --follow-lab)',
    },
    'follow-lab': {
      type: 'boolean',
      meaning:
        "join the application the dashboard's Kafka lab runs (read from the eoscope-labs topic), with its " +
        'settings, and start again with the next one whenever the lab resets or changes a setting',
    },
    'slot-id': {
      type: 'string',
      value: 'SLOT',
      meaning: 'the slot this worker fills',
      defaultText: 'worker-PID; with --follow-lab the host name',
    },
    'worker-id': { type: 'string', value: 'ID', meaning: 'the worker id', defaultText: 'SLOT-PID' },
    guarantee: {
      type: 'choice',
      choices: PROCESSING_GUARANTEES,
      defaultText: 'exactly_once',
      meaning: `processing.guarantee (at_most_once: ${AT_MOST_ONCE_NOTE})`,
    },
    'commit-interval-ms': { type: 'setting', setting: 'commit.interval.ms' },
    'session-timeout-ms': {
      type: 'setting',
      setting: 'session.timeout.ms',
      defaultText:
        `${KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs} on Kafka (heartbeat.interval.ms a fifth of it, at most ` +
        `${KAFKA_GROUP_TIMEOUTS.heartbeatIntervalMs})`,
    },
    'transaction-timeout-ms': { type: 'setting', setting: 'transaction.timeout.ms' },
    idempotence: {
      type: 'choice',
      choices: ['on', 'off'],
      defaultText: 'on',
      meaning: 'enable.idempotence; off only under at_least_once and at_most_once',
    },
    partitions: { type: 'setting', setting: 'partitions' },
    'max-poll-records': { type: 'setting', setting: 'max.poll.records' },
    'drop-acks': {
      type: 'setting',
      setting: 'dropAcks',
      meaning:
        'refused, with the reason: acks are dropped by the ack-drop proxy of a lab or `eoscope run ' +
        '--drop-acks`, which a lone worker is not behind',
      defaultText: 'none',
    },
  },
  notes: [KAFKA_SECURITY_NOTE],
} as const satisfies CommandSpec

type WorkerFlags = FlagValues<(typeof WORKER)['flags']>

/** How long a follower whose worker failed waits for the lab's next application before it gives up. */
const FOLLOW_GRACE_MS = 15_000

/** Flags a follower takes from the lab instead. */
const LAB_SETTINGS = [
  'application-id',
  'guarantee',
  'commit-interval-ms',
  'session-timeout-ms',
  'transaction-timeout-ms',
  'idempotence',
  'partitions',
  'max-poll-records',
] as const

export async function workerCommand(f: WorkerFlags, out: (s: string) => void): Promise<number> {
  const brokers = parseBrokers(f.brokers)
  const security = kafkaSecurityForCommand()
  if (f['drop-acks'] !== undefined) requireCapability(KAFKA_CAPABILITIES, 'drop-acks')
  if (f['follow-lab']) {
    const given = LAB_SETTINGS.filter((k) => f[k] !== undefined)
    if (given.length > 0)
      throw new UsageError(
        `--follow-lab takes the application and its settings from the lab: drop ` +
          `${given.map((k) => `--${k}`).join(', ')}`,
      )
    const slotId = f['slot-id'] ?? hostname()
    const workerId = f['worker-id'] ?? `${slotId}-${process.pid}`
    return followLab({ brokers, security, slotId, workerId }, out)
  }
  const appId = f['application-id']
  if (!appId) throw new UsageError('--application-id is required (or --follow-lab)')
  const guarantee = f.guarantee ?? 'exactly_once'
  requireGuarantee(KAFKA_CAPABILITIES, guarantee)
  if (f.idempotence === 'off' && isExactlyOnce(guarantee))
    throw new UsageError(`--idempotence off is only allowed with --guarantee at_least_once or at_most_once`)
  const config = withKafkaGroupTimeouts(
    streamsConfigFor(guarantee, {
      applicationId: appId,
      commitIntervalMs: f['commit-interval-ms'],
      transactionTimeoutMs: f['transaction-timeout-ms'],
      maxPollRecords: f['max-poll-records'],
      idempotence: f.idempotence !== 'off',
    }),
    f['session-timeout-ms'],
  )
  try {
    validateStreamsConfig(config)
  } catch (e) {
    throw new UsageError((e as Error).message)
  }
  const slotId = f['slot-id'] ?? `worker-${process.pid}`
  const workerId = f['worker-id'] ?? `${slotId}-${process.pid}`
  const { KafkaWorkerProcess } = await import('../runtime/kafka/kafka-worker.ts')
  const proc = new KafkaWorkerProcess({
    client: { brokers, clientId: `eoscope-${workerId}`, ...security },
    config,
    slotId,
    workerId,
    partitions: f.partitions ?? SETTINGS.partitions.default,
  })
  out(
    `eoscope worker ${workerId} (slot ${slotId}, pid ${process.pid}): ` +
      `${guarantee} on ${brokers.join(',')} (${describeKafkaSecurity(security)}), ` +
      `application.id ${appId}`,
  )
  return proc.run()
}

/**
 * A worker that follows the dashboard's Kafka lab: it joins the application the lab published
 * last, and when the lab publishes another (a reset, a new guarantee or commit.interval.ms) it
 * stops cleanly and joins that one; when the lab shuts down it stops and waits for the next.
 * SIGTERM or SIGINT ends it; a worker that fails while the lab stays the same ends it too (its
 * exit status: a supervisor such as docker compose's restart policy starts it again).
 */
async function followLab(
  o: { brokers: string[]; security: KafkaSecurity; slotId: string; workerId: string },
  out: (s: string) => void,
): Promise<number> {
  const { KafkaConnection } = await import('../log/kafka/kafka-connection.ts')
  const { KafkaWorkerProcess } = await import('../runtime/kafka/kafka-worker.ts')
  const { configOf, latestLab, nextLab } = await import('../runtime/kafka/lab-directory.ts')
  const directory = new KafkaConnection({
    brokers: o.brokers,
    clientId: `eoscope-${o.workerId}-directory`,
    ...o.security,
  })
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
      // The lab creates its topics before it publishes them: a follower never
      // creates them (a lab that is gone stays gone).
      const proc = new KafkaWorkerProcess({
        client: { brokers: o.brokers, clientId: `eoscope-${o.workerId}`, ...o.security },
        config: configOf(lab),
        slotId: o.slotId,
        workerId: o.workerId,
        partitions: lab.partitions,
        createTopics: false,
      })
      current = proc
      out(
        `eoscope worker ${o.workerId} (pid ${process.pid}) follows the lab: ${lab['processing.guarantee']}, ` +
          `commit.interval.ms ${lab['commit.interval.ms']}, application.id ${lab.applicationId} on ` +
          `${o.brokers.join(',')} (${describeKafkaSecurity(o.security)})`,
      )
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
      if (code !== 0)
        out(
          `eoscope worker ${o.workerId}: the worker on ${lab.applicationId} ended with status ${code} as the ` +
            `lab moved on`,
        )
      ;({ descriptor: d, nextOffset } = moved)
    }
    return 0
  } finally {
    process.off('SIGTERM', onTerm)
    process.off('SIGINT', onTerm)
    await directory.close()
  }
}
