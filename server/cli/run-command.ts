// `eoscope run`: one headless run, a readable summary or one JSON object.

import { median } from '../../lib/statistics.ts'
import { AT_MOST_ONCE_NOTE, isExactlyOnce, PROCESSING_GUARANTEES, SETTINGS } from '../../lib/streams-config.ts'
import {
  ACK_DROPS_FEED_MS,
  KILLS_WHEN_PACED,
  pacedForKills,
  runHeadless,
  type RunOptions,
  type RunResult,
} from '../runs/headless-run.ts'
import type { NetworkDelay } from '../log/kafka/proxy/ack-drop-proxy.ts'
import { NETWORK_FLAGS, networkDelayOf, requireKafkaForNetwork } from './network-flags.ts'
import { dumpRun } from '../validator/dump.ts'
import { EXPECTATIONS, violations } from '../validator/report.ts'
import { type CommandSpec, type FlagValues, UsageError } from './flags.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'
import { BACKENDS, capabilitiesOf, kafkaSecurityForCommand, parseBrokers } from './backend.ts'
import { requireCapability, requireGuarantee } from '../log/capabilities.ts'
import { KAFKA_GROUP_TIMEOUTS } from '../log/kafka/capabilities.ts'
import { BROKER_TARGETS } from '../runs/broker-faults.ts'

/** The exit status of a run that stalled (no committed progress for a bounded time). */
export const EXIT_STALLED = 3

export const RUN = {
  name: 'run',
  summary:
    'one headless run that feeds records through the engine, injects faults on a seeded schedule, waits until ' +
    'all input is committed and validates the logs',
  flags: {
    guarantee: {
      type: 'choice',
      choices: PROCESSING_GUARANTEES,
      default: 'exactly_once',
      meaning: `processing.guarantee (at_most_once: ${AT_MOST_ONCE_NOTE})`,
    },
    'commit-interval-ms': { type: 'setting', setting: 'commit.interval.ms' },
    workers: { type: 'setting', setting: 'workers', default: SETTINGS.workers.default },
    partitions: { type: 'setting', setting: 'partitions', default: SETTINGS.partitions.default },
    records: { type: 'setting', setting: 'records', default: SETTINGS.records.default },
    rate: {
      type: 'setting',
      setting: 'inputRatePerSec',
      meaning: 'input records per second',
      defaultText:
        'as fast as possible; with --kill-every, paced so that about four kills fall while it is fed; with ' +
        '--drop-acks alone, paced to last 2 s',
    },
    seed: { type: 'setting', setting: 'seed', default: SETTINGS.seed.default },
    'kill-every': { type: 'setting', setting: 'killEveryMs' },
    'kill-at-step': { type: 'setting', setting: 'killAtStep' },
    'restart-after': { type: 'setting', setting: 'restartAfterMs', default: SETTINGS.restartAfterMs.default },
    'drop-acks': { type: 'setting', setting: 'dropAcks', default: SETTINGS.dropAcks.default },
    idempotence: {
      type: 'choice',
      choices: ['on', 'off'],
      default: 'on',
      meaning: 'enable.idempotence; off only under at_least_once and at_most_once (exactly-once forces it on)',
    },
    'session-timeout-ms': {
      type: 'setting',
      setting: 'session.timeout.ms',
      defaultText:
        `${SETTINGS['session.timeout.ms'].default}; ` + `${KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs} on --backend kafka`,
    },
    'transaction-timeout-ms': { type: 'setting', setting: 'transaction.timeout.ms' },
    'latency-model': {
      type: 'choice',
      choices: ['default', 'off'],
      defaultText: 'default',
      meaning: "the embedded log's request latencies; off: raw speed",
    },
    json: { type: 'boolean', meaning: 'print one JSON object instead of the summary' },
    dump: {
      type: 'string',
      value: 'DIR',
      meaning: 'write every partition of every topic and the committed offsets as JSON lines under DIR',
    },
    expect: {
      type: 'choice',
      choices: EXPECTATIONS,
      meaning:
        'exit 1 when the validator finds what this guarantee forbids (exactly-once: any row; at-least-once: ' +
        'lost; at-most-once: duplicates)',
    },
    backend: {
      type: 'choice',
      choices: BACKENDS,
      default: 'embedded',
      meaning: 'the log: the embedded one, or a Kafka cluster with worker processes',
    },
    brokers: { type: 'string', value: 'HOST:PORT[,HOST:PORT]', meaning: 'the Kafka cluster (--backend kafka)' },
    'application-id': {
      type: 'string',
      value: 'ID',
      meaning: 'application.id on Kafka',
      defaultText: 'a fresh one per run',
    },
    'worker-logs': { type: 'boolean', meaning: "show the Kafka worker processes' logs" },
    'kill-broker-every': {
      type: 'number',
      meaning:
        'SIGKILL a broker of a cluster started by scripts/kafka-cluster.sh every MS while input is fed, one down at ' +
        'a time (--backend kafka; the cluster from --cluster-dir or KAFKA_CLUSTER_DIR)',
      range: { min: 1_000, max: 3_600_000 },
      integer: true,
    },
    'restart-broker-after': {
      type: 'number',
      meaning: 'start a killed broker again this many ms after its kill',
      range: { min: 0, max: 600_000 },
      integer: true,
      default: 9_000,
    },
    'kill-broker-target': {
      type: 'choice',
      choices: BROKER_TARGETS,
      default: 'cycle',
      meaning:
        "the broker each kill aims at: the group's coordinator, the transaction coordinator of the most of the " +
        "run's transactional ids, a leader of an input partition, or each in turn (cycle)",
    },
    ...NETWORK_FLAGS,
    'cluster-dir': {
      type: 'string',
      value: 'DIR',
      meaning: "scripts/kafka-cluster.sh's KAFKA_DIR: eoscope kills and restarts only the brokers it started there",
      defaultText: 'KAFKA_CLUSTER_DIR',
    },
    prefill: {
      type: 'boolean',
      meaning:
        'write the whole input before the workers start: they run on a backlog, the load generator does not ' +
        'compete with them for the CPU, and the duration counts from their start (what bench:engine and ' +
        'bench:kafka measure)',
    },
  },
  notes: [
    'Violations are data (exit 0) unless --expect names a guarantee; bad flags exit 2.',
    'A run that did not complete within its deadline exits 1; a run that stalled (the group committed no input ' +
      'for max(60 s, 12 × session.timeout.ms) while input remained) stops there and exits 3, with what was seen ' +
      '(members removed, producers re-initialised) in `stalled` and its correctness figures null.',
    `--backend kafka: session.timeout.ms defaults to ${KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs} ` +
      `(heartbeat.interval.ms ${KAFKA_GROUP_TIMEOUTS.heartbeatIntervalMs}), Kafka's own kind of timeout for a ` +
      `real cluster: detection of a killed worker takes up to session.timeout.ms.`,
    '--backend kafka: TLS and SASL from KAFKA_SSL* and KAFKA_SASL_* in the environment (see eoscope worker --help).',
  ],
} as const satisfies CommandSpec

type RunFlags = FlagValues<(typeof RUN)['flags']>

const STEPS: readonly NonNullable<RunOptions['killAtStep']>[] = [1, 2, 3, 4, 5]

/** Refuses what the chosen backend cannot do, with its reasons, and flags that need another backend. */
function checkBackend(f: RunFlags): void {
  // A run that drops acks on Kafka puts its worker processes behind the ack-drop proxy.
  const caps = capabilitiesOf(f.backend, {
    route: f['drop-acks'] > 0 ? 'ack-drop-proxy' : 'direct',
    client: f.backend === 'kafka' ? kafkaSecurityForCommand() : {},
  })
  requireGuarantee(caps, f.guarantee)
  if (f['drop-acks'] > 0) requireCapability(caps, 'drop-acks')
  if (f['kill-at-step'] !== undefined) requireCapability(caps, 'kill-at-step')
  const kafka = f.backend === 'kafka'
  if (!kafka && (f.brokers !== undefined || f['application-id'] !== undefined || f['worker-logs']))
    throw new UsageError('--brokers, --application-id and --worker-logs need --backend kafka')
  if (!kafka && (f['kill-broker-every'] !== undefined || f['cluster-dir'] !== undefined))
    throw new UsageError('--kill-broker-every and --cluster-dir need --backend kafka')
  requireKafkaForNetwork(f, f.backend)
  if (f['kill-broker-every'] !== undefined && clusterDirOf(f) === null)
    throw new UsageError(
      '--kill-broker-every needs the directory of a cluster scripts/kafka-cluster.sh started ' +
        '(--cluster-dir or KAFKA_CLUSTER_DIR)',
    )
  if (kafka && f['latency-model'] !== undefined)
    throw new UsageError("--latency-model applies to the embedded log only; on Kafka the latencies are the broker's")
  if (f.prefill && f.rate !== undefined)
    throw new UsageError('--prefill writes the input as fast as it can before the workers start; it takes no --rate')
  if (f.prefill && (f['kill-every'] !== undefined || f['drop-acks'] > 0))
    throw new UsageError(
      '--prefill measures a run without faults: kills and lost acks fall while input is fed, and with ' +
        '--prefill it is all written before the workers start (leave out --prefill to inject faults)',
    )
  if (f.idempotence === 'off' && isExactlyOnce(f.guarantee)) {
    throw new UsageError(
      `--idempotence off is only allowed with --guarantee at_least_once or at_most_once (Kafka Streams forces ` +
        `enable.idempotence=true under ${f.guarantee})`,
    )
  }
}

/** The network delay between the workers and the brokers the flags ask for, if any. */
function networkOf(f: RunFlags): { network?: NetworkDelay } {
  const network = networkDelayOf(f, f.seed)
  return network === null ? {} : { network }
}

/** The local cluster's directory: --cluster-dir, else KAFKA_CLUSTER_DIR, else none. */
function clusterDirOf(f: RunFlags): string | null {
  return f['cluster-dir'] ?? ((process.env.KAFKA_CLUSTER_DIR ?? '').trim() || null)
}

/**
 * The input's rate: --rate; else, with --kill-every, paced for about four kills (pacedForKills: a run as fast as
 * the engine can go would end before its first kill); else, with --drop-acks, paced to last ACK_DROPS_FEED_MS, over
 * which the drops are spread; else as fast as possible.
 */
export function inputRateFor(
  f: Pick<RunFlags, 'rate' | 'records' | 'kill-every' | 'drop-acks'>,
): Pick<RunOptions, 'rate' | 'rateChosen'> {
  if (f.rate !== undefined) return { rate: f.rate }
  const killEveryMs = f['kill-every']
  if (killEveryMs !== undefined)
    return {
      rate: pacedForKills(f.records, killEveryMs),
      rateChosen: `paced for about ${KILLS_WHEN_PACED} kills: --kill-every ${killEveryMs} without --rate`,
    }
  if (f['drop-acks'] > 0)
    return {
      rate: Math.ceil((f.records * 1000) / ACK_DROPS_FEED_MS),
      rateChosen: `paced to last ${ACK_DROPS_FEED_MS / 1000} s, the lost acks spread over it: --drop-acks, no --rate`,
    }
  return { rate: Number.POSITIVE_INFINITY }
}

export function runOptionsOf(f: RunFlags): RunOptions {
  checkBackend(f)
  const dumpDir = f.dump
  return {
    guarantee: f.guarantee,
    commitIntervalMs: f['commit-interval-ms'],
    transactionTimeoutMs: f['transaction-timeout-ms'],
    sessionTimeoutMs: f['session-timeout-ms'],
    workers: f.workers,
    partitions: f.partitions,
    records: f.records,
    ...inputRateFor(f),
    seed: f.seed,
    killEveryMs: f['kill-every'] ?? null,
    killAtStep: STEPS.find((s) => s === f['kill-at-step']) ?? null,
    restartAfterMs: f['restart-after'],
    dropAcks: f['drop-acks'],
    idempotence: f.idempotence === 'on',
    latency: f['latency-model'] ?? 'default',
    backend: f.backend,
    prefill: f.prefill,
    brokerFaults:
      f['kill-broker-every'] === undefined
        ? undefined
        : {
            killEveryMs: f['kill-broker-every'],
            restartAfterMs: f['restart-broker-after'],
            target: f['kill-broker-target'],
          },
    kafka:
      f.backend === 'kafka'
        ? {
            client: { brokers: parseBrokers(f.brokers), ...kafkaSecurityForCommand() },
            applicationId: f['application-id'],
            workerLogs: f['worker-logs'],
            localBrokersDir: clusterDirOf(f),
            ...networkOf(f),
          }
        : undefined,
    beforeClose:
      dumpDir === undefined ? undefined : (r: LabRuntime) => dumpRun(r.connection.inspector(), dumpDir, r.groupId),
  }
}

export async function runCommand(f: RunFlags, out: (s: string) => void): Promise<number> {
  const result = await runHeadless(runOptionsOf(f)).catch((e: unknown) => {
    if (e instanceof Error && e.name === 'ConfigException') throw new UsageError(e.message)
    throw e
  })
  const { validation, unavailableFigures, ...summary } = result
  // A figure that cannot be told is null, and says why here: the validator's rows, or all of them after a stall.
  const unavailable = [
    ...validation.unavailable,
    ...(unavailableFigures ?? []).map((u) => ({ row: u.figure, reason: u.reason })),
  ]
  if (f.json) out(JSON.stringify({ ...summary, poison: validation.poison, unavailable }))
  else out(formatSummary(result))
  if (result.stalled) return EXIT_STALLED
  if (!result.completed) return 1
  if (f.expect) {
    const v = violations(validation, f.expect)
    if (v.length > 0) {
      if (!f.json) out(`expectation ${f.expect} violated: ${v.map((x) => `${x.row}=${x.value}`).join(', ')}`)
      return 1
    }
  }
  return 0
}

/**
 * The recoveries a run measured (recovery time, docs/measures.md): how many, their median and
 * maximum in whole ms; null when none completed.
 */
export function recoveriesLine(recoveries: readonly { ms: number | null }[]): string | null {
  const ms = recoveries.flatMap((x) => (x.ms === null ? [] : [x.ms])).sort((a, b) => a - b)
  if (ms.length === 0) return null
  return (
    `  recoveries            ${ms.length} measured (recovery time), median ${Math.round(median(ms))} ms, max ` +
    `${Math.round(ms[ms.length - 1]!)} ms`
  )
}

/** A broker's roles with their lists counted: 'leader of 7 partitions', 'transaction coordinator of 2 ids'. */
export function rolesInShort(roles: readonly string[]): string {
  const counted = (role: string, prefix: string, noun: string) => {
    const n = role.slice(prefix.length).split(', ').length
    return `${prefix}${n} ${noun}${n === 1 ? '' : 's'}`
  }
  const short = roles.map((role) => {
    if (role.startsWith('leader of ')) return counted(role, 'leader of ', 'partition')
    if (role.startsWith('transaction coordinator of ')) return counted(role, 'transaction coordinator of ', 'id')
    return role
  })
  return short.length > 0 ? short.join(', ') : 'no role for the run'
}

/** '40,000 records/s (paced for about 4 kills: ...)', or 'as fast as possible'. */
function inputRateText(rate: RunResult['inputRate']): string {
  if (rate.perSec === null) return 'as fast as possible'
  return `${rate.perSec.toLocaleString('en-US')} records/s${rate.chosen === 'given' ? '' : ` (${rate.chosen})`}`
}

function formatSummary(r: RunResult): string {
  const lines = [
    `eoscope run: ${r.backend} backend, ${r.guarantee}, commit.interval.ms=${r.commitIntervalMs}, ${r.records} ` +
      `records${r.stalled ? ' (STALLED)' : r.completed ? '' : ' (DID NOT COMPLETE)'}`,
    ...(r.stalled ? [`  stalled               ${r.stalled.reason}`] : []),
    `  processed throughput  ${r.throughputPerSec.toLocaleString('en-US')} records/s over ` +
      `${(r.durationMs / 1000).toFixed(2)} s (the whole run)`,
    r.steadyThroughput.perSec === null
      ? `  steady throughput     not measured: ${r.steadyThroughput.unmeasured}`
      : `  steady throughput     ${r.steadyThroughput.perSec.toLocaleString('en-US')} records/s between 10% and 90% ` +
        `committed (${(r.steadyThroughput.windowMs / 1000).toFixed(2)} s; the engine's rate, as bench:engine takes it)`,
    `  input rate            ${inputRateText(r.inputRate)}`,
    ...(r.network
      ? [
          `  network               ${r.network.oneWayLatencyMs} ms one way, each way (jitter up to ` +
            `${r.network.jitterMs} ms) between the worker processes and the brokers`,
        ]
      : []),
    `  output records        ${r.outputRecords}`,
    `  faults                ${r.kills} kills, ${r.droppedAcks} dropped acks, ${r.fenced} fenced/migrated`,
    `  workers               ${r.workers.started} started, ${r.workers.liveAtEnd} live at the end, ` +
      `${r.crashes.length} crashed (${r.crashHandler})`,
    ...r.crashes.map(
      (c) => `  crash                 ${c.workerId} at ${(c.t / 1000).toFixed(1)} s: ${c.cause.slice(0, 160)}`,
    ),
    ...(r.brokerKills ?? []).map(
      (k) =>
        `  broker kill           broker ${k.brokerId} at ${(k.t / 1000).toFixed(1)} s, aimed at the ${k.target} ` +
        `(${rolesInShort(k.roles)}), ` +
        (k.downMs === null ? `not back: ${k.restartError}` : `down ${(k.downMs / 1000).toFixed(1)} s`),
    ),
    ...(r.warnings ?? []).map((w) => `  WARNING               ${w}`),
    `  transactions          ${r.transactions.committed} committed, ${r.transactions.aborted} aborted (by producer ` +
      `id and epoch; workers reported ${r.transactionsReported.committed} / ${r.transactionsReported.aborted})`,
    `  txn markers           ${r.transactionMarkers.commit} COMMIT, ${r.transactionMarkers.abort} ABORT ` +
      '(one per partition a transaction touched)',
    `  duplicates            ${r.duplicates ?? 'unavailable'}`,
    `  lost                  ${r.lost ?? 'unavailable'}`,
    `  aborted reads         ${r.abortedReads ?? 'unavailable'} (read_uncommitted would see ` +
      `${r.abortedReadsUncommitted ?? 'unavailable'})`,
    `  state mismatches      ${r.stateMismatches ?? 'unavailable'}`,
    // Partitions, not transactions: one transaction holds several open (docs/measures.md#open-transactions).
    `  open-txn partitions   ${r.openTransactions ?? 'unavailable'} (partitions whose LSO is below the HW)`,
  ]
  const recoveries = recoveriesLine(r.recoveries)
  if (recoveries) lines.push(recoveries)
  if (r.duplicateKeys.length > 0)
    lines.push(
      `  duplicate keys        ${r.duplicateKeys
        .slice(0, 8)
        .map((k) => `${k.key}×${k.count}`)
        .join(' ')}`,
    )
  return lines.join('\n')
}
