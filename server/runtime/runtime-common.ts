// What both runtimes do the same way: a worker's status from its StreamWorker, the recovery
// tracker fed from the typed events, the transactional ids a kill leaves open, poison records.

import { partitionForKey } from '../../lib/partitioner.ts'
import type { ProcessingGuarantee, StreamsConfig } from '../../lib/streams-config.ts'
import { partitionOfTask, taskIdOf } from '../../lib/task-id.ts'
import type { TaskTopics } from '../engine/stream-task.ts'
import type { StreamWorker } from '../engine/stream-worker.ts'
import type { SeededRandom } from '../log/time.ts'
import type { ProduceRecord } from '../log/types.ts'
import type { LabEvent, WorkerStatus } from './lab-runtime.ts'
import type { KilledPartition, RecoveryTracker } from './recovery-tracker.ts'

export function workerStatusOf(w: StreamWorker): WorkerStatus {
  return {
    state: w.state,
    memberId: w.memberId,
    generationId: w.generationId,
    tasks: [...w.tasks.values()].map((t) => ({
      partition: t.partition,
      state: t.state,
      consumedOffset: t.consumedOffset,
      committedOffset: t.committedOffset,
      ackedOffset: t.ackedOffset,
      inTransaction: t.producer?.transactionInFlight === true,
      steps: { ...t.steps },
    })),
    producers: w.producers(),
    error: w.error,
    stop: w.stop,
  }
}

/** What the validator reads of a runtime's application: its group and topics. */
export function validationTarget(rt: { readonly groupId: string; readonly topics: TaskTopics }): {
  groupId: string
  inputTopic: string
  outputTopic: string
  changelogTopic: string
  dlqTopic: string
} {
  const t = rt.topics
  return {
    groupId: rt.groupId,
    inputTopic: t.input,
    outputTopic: t.output,
    changelogTopic: t.changelog,
    dlqTopic: t.deadLetter,
  }
}

/** The recovery phases both runtimes observe from the same events (detection, assignment, fence, restore, catch-up). */
export function trackRecovery(t: RecoveryTracker, e: LabEvent): void {
  if ('source' in e) return
  switch (e.type) {
    case 'member-gone':
      t.onMemberGone(e.memberId, e.atMs)
      break
    case 'partitions-assigned':
      t.onAssigned(e.partitions, e.atMs)
      break
    case 'fence-complete':
      t.onFenced(partitionOfTask(e.taskId), e.atMs)
      break
    case 'restore-end':
      t.onRestored(partitionOfTask(e.taskId), e.atMs)
      break
    case 'offsets-committed':
      for (const o of e.offsets) t.onCommitted(o.partition, o.offset, e.atMs)
      break
  }
}

/**
 * A kill, for the recovery tracker: with the transactional ids whose open transactions it leaves to the coordinator.
 */
export function trackKill(
  tracker: RecoveryTracker,
  config: StreamsConfig,
  k: {
    workerId: string
    slotId: string
    memberId: string | null
    t0: number
    partitions: KilledPartition[]
    hadOpenTxn: boolean
  },
): void {
  const guarantee = config['processing.guarantee']
  const transactionalIds = transactionalIdsAtKill(
    guarantee,
    config['application.id'],
    k.slotId,
    k.partitions.map((p) => p.partition),
  )
  tracker.onKill({
    workerId: k.workerId,
    memberId: k.memberId,
    transactionalIds,
    guarantee,
    t0: k.t0,
    partitions: k.partitions,
    hadOpenTxn: k.hadOpenTxn,
  })
}

function transactionalIdsAtKill(
  guarantee: ProcessingGuarantee,
  groupId: string,
  slotId: string,
  partitions: readonly number[],
): string[] {
  if (guarantee === 'exactly_once') return partitions.map((p) => `${groupId}-${taskIdOf(p)}`)
  if (guarantee === 'exactly_once_v2') return [`${groupId}-${slotId}`]
  return []
}

/** Input records whose values do not parse (poison), keyed like the load generator's. */
export function poisonRecords(
  random: SeededRandom,
  count: number,
  keys: number,
  topic: string,
  partitions: number,
): ProduceRecord[] {
  const names = Array.from({ length: count }, () => `k${String(random.int(0, keys)).padStart(4, '0')}`)
  return names.map((key) => ({
    topic,
    partition: partitionForKey(key, partitions),
    key,
    value: `not-a-number-${random.int(0, 1_000_000)}`,
  }))
}
