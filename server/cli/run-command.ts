// `eoscope run`: one headless run, a readable summary or one JSON object.

import type { Step } from '../../lib/lab-protocol.ts'
import { PROCESSING_GUARANTEES, type ProcessingGuarantee } from '../../lib/streams-config.ts'
import { runHeadless, type RunResult } from '../lab/headless-run.ts'
import { dumpRun } from '../validator/dump.ts'
import { violations } from '../validator/report.ts'
import { parseFlags, UsageError } from './args.ts'
import type { RunRuntime } from '../lab/run-runtime.ts'
import { guaranteeRefusal, refusal } from '../log/capabilities.ts'
import { KAFKA_CAPABILITIES } from '../log/kafka/capabilities.ts'
import { kafkaSecurityForCommand, parseBrokers } from './worker-command.ts'

export const RUN_USAGE = `eoscope run [--guarantee at_least_once|exactly_once|exactly_once_v2] [--commit-interval-ms N]
            [--workers N] [--partitions N] [--records N] [--rate N] [--seed N]
            [--kill-every MS] [--kill-at-step 1-5] [--restart-after MS] [--drop-acks N] [--idempotence on|off]
            [--session-timeout-ms N] [--transaction-timeout-ms N]
            [--latency-model default|off] [--json] [--dump DIR] [--expect exactly-once|at-least-once]
            [--backend embedded|kafka] [--brokers HOST:PORT[,HOST:PORT]] [--application-id ID] [--worker-logs]
  --backend kafka: TLS and SASL from KAFKA_SSL* and KAFKA_SASL_* in the environment (see eoscope worker)`

const SPEC = {
  guarantee: { kind: 'string', choices: PROCESSING_GUARANTEES },
  'commit-interval-ms': { kind: 'int', min: 1, max: 600_000 },
  workers: { kind: 'int', min: 1, max: 64 },
  partitions: { kind: 'int', min: 1, max: 256 },
  records: { kind: 'int', min: 1, max: 100_000_000 },
  rate: { kind: 'number', min: 0.001 },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1 },
  'kill-every': { kind: 'int', min: 1 },
  'kill-at-step': { kind: 'int', min: 1, max: 5 },
  'restart-after': { kind: 'int', min: 0 },
  'drop-acks': { kind: 'int', min: 0, max: 100_000 },
  idempotence: { kind: 'string', choices: ['on', 'off'] },
  'session-timeout-ms': { kind: 'int', min: 10, max: 600_000 },
  'transaction-timeout-ms': { kind: 'int', min: 1, max: 900_000 },
  'latency-model': { kind: 'string', choices: ['default', 'off'] },
  json: { kind: 'bool' },
  dump: { kind: 'string' },
  expect: { kind: 'string', choices: ['exactly-once', 'at-least-once'] },
  backend: { kind: 'string', choices: ['embedded', 'kafka'] },
  brokers: { kind: 'string' },
  'application-id': { kind: 'string' },
  'worker-logs': { kind: 'bool' },
} as const

export async function runCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const f = parseFlags(argv, SPEC)
  const guarantee = (f.guarantee as ProcessingGuarantee | undefined) ?? 'exactly_once'
  const kafka = f.backend === 'kafka'
  if (!kafka && (f.brokers !== undefined || f['application-id'] !== undefined || f['worker-logs'] !== undefined)) throw new UsageError('--brokers, --application-id and --worker-logs need --backend kafka')
  if (kafka) {
    const refused = guaranteeRefusal(KAFKA_CAPABILITIES, guarantee) ?? (((f['drop-acks'] as number | undefined) ?? 0) > 0 ? refusal(KAFKA_CAPABILITIES, 'drop-acks') : null)
    if (refused !== null) throw new UsageError(refused)
    if (f['latency-model'] !== undefined) throw new UsageError('--latency-model applies to the embedded log only; on Kafka the latencies are the broker\'s')
  }
  const kafkaClient = kafka ? { brokers: parseBrokers(f.brokers as string | undefined), ...kafkaSecurityForCommand() } : null
  if (f.idempotence === 'off' && guarantee !== 'at_least_once') {
    throw new UsageError(`--idempotence off is only allowed with --guarantee at_least_once (Kafka Streams forces enable.idempotence=true under ${guarantee})`)
  }
  const dumpDir = typeof f.dump === 'string' ? f.dump : null
  const result = await runHeadless(
    {
      guarantee,
      commitIntervalMs: f['commit-interval-ms'] as number | undefined,
      transactionTimeoutMs: f['transaction-timeout-ms'] as number | undefined,
      sessionTimeoutMs: f['session-timeout-ms'] as number | undefined,
      workers: (f.workers as number | undefined) ?? 3,
      partitions: (f.partitions as number | undefined) ?? 6,
      records: (f.records as number | undefined) ?? 100_000,
      rate: (f.rate as number | undefined) ?? Number.POSITIVE_INFINITY,
      seed: (f.seed as number | undefined) ?? 1,
      killEveryMs: (f['kill-every'] as number | undefined) ?? null,
      killAtStep: ((f['kill-at-step'] as number | undefined) ?? null) as Step | null,
      restartAfterMs: (f['restart-after'] as number | undefined) ?? 0,
      dropAcks: (f['drop-acks'] as number | undefined) ?? 0,
      idempotence: f.idempotence !== 'off',
      latency: (f['latency-model'] as 'default' | 'off' | undefined) ?? 'default',
      backend: kafka ? 'kafka' : 'embedded',
      kafka: kafkaClient ? { client: kafkaClient, applicationId: f['application-id'] as string | undefined, workerLogs: f['worker-logs'] === true } : undefined,
      beforeClose: dumpDir === null ? undefined : (r: RunRuntime) => dumpRun(r.connection.inspector(), dumpDir, r.groupId),
    },
  ).catch((e: unknown) => {
    if (e instanceof Error && e.name === 'ConfigException') throw new UsageError(e.message)
    throw e
  })
  const { validation, ...summary } = result
  if (f.json) out(JSON.stringify({ ...summary, poison: validation.poison, unavailable: validation.unavailable }))
  else out(formatSummary(result))
  if (!result.completed) return 1
  if (f.expect) {
    const v = violations(validation, f.expect as 'exactly-once' | 'at-least-once')
    if (v.length > 0) {
      if (!f.json) out(`expectation ${f.expect} violated: ${v.map((x) => `${x.row}=${x.value}`).join(', ')}`)
      return 1
    }
  }
  return 0
}

function formatSummary(r: RunResult): string {
  const lines = [
    `eoscope run: ${r.backend} backend, ${r.guarantee}, commit.interval.ms=${r.commitIntervalMs}, ${r.records} records${r.completed ? '' : ' (DID NOT COMPLETE)'}`,
    `  processed throughput  ${r.throughputPerSec.toLocaleString('en-US')} records/s over ${(r.durationMs / 1000).toFixed(2)} s`,
    `  output records        ${r.outputRecords}`,
    `  faults                ${r.kills} kills, ${r.droppedAcks} dropped acks, ${r.fenced} fenced/migrated`,
    `  transactions          ${r.transactions.committed} committed, ${r.transactions.aborted} aborted`,
    `  duplicates            ${r.duplicates ?? 'unavailable'}`,
    `  lost                  ${r.lost ?? 'unavailable'}`,
    `  aborted reads         ${r.abortedReads} (read_uncommitted would see ${r.abortedReadsUncommitted})`,
    `  state mismatches      ${r.stateMismatches ?? 'unavailable'}`,
    `  open transactions     ${r.openTransactions}`,
  ]
  const done = r.recoveries.filter((x) => x.ms !== null)
  if (done.length > 0) {
    const ms = done.map((x) => x.ms!).sort((a, b) => a - b)
    lines.push(`  recoveries            ${done.length} measured, median ${ms[Math.floor(ms.length / 2)]} ms, max ${ms[ms.length - 1]} ms`)
  }
  if (r.duplicateKeys.length > 0) lines.push(`  duplicate keys        ${r.duplicateKeys.slice(0, 8).map((k) => `${k.key}×${k.count}`).join(' ')}`)
  return lines.join('\n')
}
