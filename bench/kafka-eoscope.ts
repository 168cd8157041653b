// One bench:kafka run of eoscope: 3 worker processes on 6 partitions of a fresh application, the
// whole input written before they start, measured by bench/kafka-window.ts, then checked by the
// validator. Its group's committed offsets come from describe/fetch every 100 ms and the workers'
// offsets-committed events.

import { defaultStreamsConfig, type ProcessingGuarantee } from '../lib/streams-config.ts'
import { WorkerProcessRuntime as KafkaLabRuntime } from '../server/runtime/kafka/worker-process-runtime.ts'
import { KafkaConnection } from '../server/log/kafka/kafka-connection.ts'
import { SystemTime } from '../server/log/time.ts'
import { validateRun } from '../server/validator/validator.ts'
import { localBrokerCpu, processCpuSeconds } from './process-cpu.ts'
import { checkedRun, measureWindow, type RunResult } from './kafka-window.ts'

export const WORKERS = 3
export const PARTITIONS = 6
export const KEYS = 100

const SHORT: Record<ProcessingGuarantee, string> = {
  at_most_once: 'amos',
  at_least_once: 'alos',
  exactly_once: 'eos',
  exactly_once_v2: 'eosv2',
}

export interface RunPlan {
  brokers: string[]
  guarantee: ProcessingGuarantee
  commitIntervalMs: number
  records: number
  seed: number
  /** How long the run may take to commit all its input before it counts as failed. */
  boundMs: number
}

export async function runEoscope(plan: RunPlan): Promise<RunResult> {
  const { brokers, guarantee, commitIntervalMs, records, seed } = plan
  const appId = `eoscope-bench-${SHORT[guarantee]}-${commitIntervalMs}-${Date.now().toString(36)}`
  const config = defaultStreamsConfig(guarantee, appId)
  config['commit.interval.ms'] = commitIntervalMs
  const lab = new KafkaLabRuntime(new SystemTime(), {
    client: { brokers, clientId: appId },
    config,
    workers: WORKERS,
    partitions: PARTITIONS,
    ratePerSec: Number.POSITIVE_INFINITY,
    maxRecords: records,
    keys: KEYS,
    seed,
    restartAfterMs: null,
    // The whole input is written before the workers start: they run on a backlog, and the load
    // generator does not compete with them for the CPU while they are measured.
    prefill: true,
  })
  const brokerCpuSeconds = localBrokerCpu(brokers)
  try {
    await lab.start()
    const progress = {
      committedTotal: () => lab.committedTotal(),
      caughtUp: () => lab.caughtUp(),
      groupSettled: () => lab.groupSettled(),
      failure: () => lab.loadFailure(),
      // The workers of the window: a bench run kills none, so the slots' processes are its only ones.
      engineCpuSeconds: () =>
        processCpuSeconds(lab.slots.flatMap((s) => (s.child?.pid === undefined ? [] : [s.child.pid]))),
      brokerCpuSeconds,
    }
    const window = await measureWindow(appId, records, progress, plan.boundMs)
    await lab.stop()
    const report = await validateRun(lab.connection.inspector(), {
      groupId: lab.groupId,
      inputTopic: lab.topics.input,
      outputTopic: lab.topics.output,
      changelogTopic: lab.topics.changelog,
      dlqTopic: lab.topics.deadLetter,
    })
    const validated = checkedRun(appId, guarantee, report)
    const counts = lab.transactionCounts()
    return { ...window, transactions: counts.committed + counts.aborted, validated }
  } finally {
    await lab.close()
    const cleanup = new KafkaConnection({ brokers, clientId: `${appId}-cleanup` })
    const t = lab.topics
    await cleanup
      .admin()
      .deleteTopics([t.input, t.output, t.changelog, t.deadLetter, t.telemetry, t.commands])
      .catch(() => {})
    await cleanup.close()
  }
}
