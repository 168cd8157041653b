// The consumer in a group, on kafkajs, behind the poll() model of the log seam.
//
// kafkajs pushes batches to an eachBatch callback from its own fetch loop; this consumer runs
// that loop with autoCommit off and keeps what it fetched in a buffer that poll() drains. When
// the buffer holds maxBufferedRecords, eachBatch waits (heartbeating) until poll() takes some:
// that is the backpressure. kafkajs has no rebalance callbacks, so the listener is driven by
// kafkajs's GROUP_JOIN event, and its calls run in the next poll(), as Java runs them in poll():
// - onPartitionsAssigned: the partitions that the new assignment adds;
// - onPartitionsRevoked: the partitions that it no longer has. kafkajs rejoins the group as soon
//   as it sees a rebalance and gives no hook before it does, so this runs AFTER the partitions
//   were released: a commit made there is not a clean hand-off. Under exactly_once the next
//   owner's initTransactions fences the old producer, so such a commit fails with PRODUCER_FENCED;
//   under at_least_once it may overwrite the next owner's first commit (duplicates, no loss);
//   under exactly_once_v2 the commit still carries the generation from before the join
//   (commit-generation.ts), so the coordinator refuses it and the worker aborts.
// - onPartitionsLost: all previous partitions, when the group gave this member a new member id
//   (the coordinator had dropped it: session expired), then onPartitionsAssigned for the new ones.
// The assignment is sticky (sticky-assigner.ts): a rebalance moves only the partitions it must.
// After each rebalance kafkajs restarts every partition from its committed offset; this consumer
// seeks the partitions it keeps back to its own positions and admits every fetched batch through
// its PositionGuard (position-guard.ts): poll() never hands out a record below the position or
// past a gap. Heartbeats never wait behind processing: kafkajs sends them from its fetch loop,
// beside the task loop (poll() only drains a buffer), and a timer every heartbeat.interval.ms
// sends one too; like Java's heartbeat thread, it stops once poll() has not been called for
// max.poll.interval.ms. After a task migrated, the next poll hears from the group first (group-answer.ts).

import type { Consumer, EachBatchPayload } from 'kafkajs'
import { isLogError, LogError } from '../errors.ts'
import type {
  ConsumedRecord,
  ConsumerGroupMetadata,
  ConsumerOptions,
  LogConsumer,
  OffsetToCommit,
  RebalanceListener,
  TopicPartition,
} from '../types.ts'
import { tpKey } from '../types.ts'
import { createKafka, type KafkaClientConfig } from './kafka-client.ts'
import { mapErrors, toLogError } from './kafka-errors.ts'
import { toConsumedRecord } from './kafka-records.ts'
import { PositionGuard, type FetchedBatch, type VisibleInRange } from './position-guard.ts'
import { byTopic, fromAssignment } from './topic-partitions.ts'
import { StableOffsetFetcher } from './kip447/stable-offsets.ts'
import { CommitGeneration, type GroupIdentity } from './commit-generation.ts'
import { stickyAssigner } from './sticky-assigner.ts'
import { mayCommitAgainAfterJoin } from './commit-after-join.ts'
import { GroupAnswer } from './group-answer.ts'

export interface KafkaConsumerTuning {
  /** Records fetched ahead of poll(); eachBatch waits while the buffer holds this many. */
  maxBufferedRecords?: number
  /** How long an empty poll() waits for records. */
  pollWaitMs?: number
  /** Like max.poll.interval.ms: no heartbeats from a full buffer when poll() was not called for this long. */
  maxPollIntervalMs?: number
}

type RebalanceStep =
  | { kind: 'lost' | 'revoked' | 'assigned'; partitions: TopicPartition[] }
  | { kind: 'generation'; identity: GroupIdentity }

export class KafkaLogConsumer implements LogConsumer {
  private readonly consumer: Consumer
  private readonly offsets: StableOffsetFetcher
  private listener: RebalanceListener | null = null
  /** The latest join's member id and generation (kafkajs's GROUP_JOIN, the patch adds the generation). */
  private memberId = ''
  private joinedGeneration = -1
  /** What a commit carries: behind the latest join while a revocation waits for poll() (commit-generation.ts). */
  private readonly commitGeneration = new CommitGeneration()
  /** The partitions kafkajs fetches (changed at each join). */
  private readonly owned = new Map<string, TopicPartition>()
  /** The partitions the listener was told about (changed in poll, as in Java). */
  private readonly assigned = new Map<string, TopicPartition>()
  private readonly positions = new Map<string, number>()
  private readonly buffers = new Map<string, ConsumedRecord[]>()
  private buffered = 0
  private cursor = 0
  private readonly steps: RebalanceStep[] = []
  private readonly wakers = new Set<() => void>()
  private crash: unknown = null
  private lastPollMs = Date.now()
  private closed = false
  /** kafkajs's heartbeat (interval-limited, shared with its fetch loop), from the latest batch. */
  private heartbeatOf: (() => Promise<void>) | null = null
  private readonly heartbeatTimer: ReturnType<typeof setInterval>
  private readonly maxBuffered: number
  private readonly pollWaitMs: number
  private readonly maxPollIntervalMs: number
  private readonly guard: PositionGuard
  private readonly rebalanceTimeoutMs: number
  /** Joins completed (GROUP_JOIN events). */
  private joins = 0
  /** Asked by enforceRebalance: the next poll first hears from the group (group-answer.ts). */
  private readonly groupAnswer = new GroupAnswer()

  /** `visibleIn` reads a range of a partition group-less, at this consumer's isolation level. */
  constructor(
    config: KafkaClientConfig,
    private readonly options: ConsumerOptions,
    visibleIn: VisibleInRange,
    tuning: KafkaConsumerTuning = {},
  ) {
    this.guard = new PositionGuard(visibleIn)
    this.rebalanceTimeoutMs = Math.max(10_000, 3 * options.sessionTimeoutMs)
    this.maxBuffered = tuning.maxBufferedRecords ?? 2_000
    this.pollWaitMs = tuning.pollWaitMs ?? Math.min(50, options.heartbeatIntervalMs)
    this.maxPollIntervalMs = tuning.maxPollIntervalMs ?? 300_000
    const kafka = createKafka(config, options.clientId)
    this.consumer = kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: options.sessionTimeoutMs,
      heartbeatInterval: options.heartbeatIntervalMs,
      rebalanceTimeout: this.rebalanceTimeoutMs,
      readUncommitted: options.isolationLevel === 'read_uncommitted',
      // Heartbeats go out between fetches: a fetch must not wait longer than a heartbeat interval.
      maxWaitTimeInMs: Math.max(10, Math.min(100, options.heartbeatIntervalMs)),
      allowAutoTopicCreation: false,
      retry: { initialRetryTime: 50, maxRetryTime: 1_000, retries: 10 },
      // Sticky, as Kafka Streams: a rebalance moves only the partitions it must (sticky-assigner.ts).
      partitionAssigners: [
        stickyAssigner(() => ({ generation: this.joinedGeneration, partitions: [...this.owned.values()] })),
      ],
    })
    this.offsets = new StableOffsetFetcher(createKafka(config, `${options.clientId}-offsets`), options.groupId)
    this.heartbeatTimer = setInterval(() => this.heartbeatBesideProcessing(), Math.max(1, options.heartbeatIntervalMs))
    this.heartbeatTimer.unref?.()
    this.consumer.on(this.consumer.events.GROUP_JOIN, (e) =>
      this.onGroupJoin(e.payload.generationId, e.payload.memberId, e.payload.memberAssignment),
    )
    this.consumer.on(this.consumer.events.HEARTBEAT, () => {
      this.groupAnswer.heartbeatAccepted()
      this.wake()
    })
    this.consumer.on(this.consumer.events.CRASH, (e) => {
      if (!e.payload.restart) this.crash = e.payload.error
      this.wake()
    })
  }

  async subscribe(topics: string[], listener: RebalanceListener): Promise<void> {
    if (this.listener) throw new LogError('INVALID_REQUEST', `consumer ${this.options.clientId} is already subscribed`)
    this.listener = listener
    await mapErrors(`subscribe ${this.options.groupId} to ${topics.join(', ')}`, async () => {
      await this.consumer.connect()
      await this.consumer.subscribe({ topics, fromBeginning: true })
      await this.consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: true,
        partitionsConsumedConcurrently: 1,
        eachBatch: (payload) => this.onBatch(payload),
      })
    })
    if (this.crash)
      throw toLogError(this.crash, `consumer ${this.options.clientId} could not join group ${this.options.groupId}`)
  }

  /**
   * Called by kafkajs inside its join, before any fetch for the new assignment. The fetch side
   * (what kafkajs owns, the buffer, the restart positions) changes at once; what assignment()
   * shows and what the listener hears change in the next poll().
   */
  private onGroupJoin(generationId: number, memberId: string, memberAssignment: Record<string, number[]>): void {
    const next = fromAssignment(memberAssignment)
    const previous = [...this.owned.values()]
    const nextKeys = new Set(next.map((tp) => tpKey(tp.topic, tp.partition)))
    const kicked = this.memberId !== '' && memberId !== this.memberId
    this.joins++
    this.memberId = memberId
    this.joinedGeneration = generationId
    const released = kicked ? previous : previous.filter((tp) => !nextKeys.has(tpKey(tp.topic, tp.partition)))
    if (released.length > 0) this.steps.push({ kind: kicked ? 'lost' : 'revoked', partitions: released })
    const identity = { generationId: this.joinedGeneration, memberId }
    if (!this.commitGeneration.joined(identity, released.length > 0 ? 'releases' : 'keeps').switchNow)
      this.steps.push({ kind: 'generation', identity })
    for (const tp of released) {
      this.owned.delete(tpKey(tp.topic, tp.partition))
      this.guard.forget(tpKey(tp.topic, tp.partition))
    }
    const added = next.filter((tp) => !this.owned.has(tpKey(tp.topic, tp.partition)))
    if (added.length > 0) this.steps.push({ kind: 'assigned', partitions: added })
    // kafkajs restarts every partition from its committed offset: refetch kept ones from our positions.
    this.buffers.clear()
    this.buffered = 0
    for (const tp of next) {
      const key = tpKey(tp.topic, tp.partition)
      const position = this.owned.has(key) ? this.positions.get(key) : undefined
      if (position !== undefined) {
        this.guard.startAt(key, position)
        seekUnlessRejoining(this.consumer, tp, position)
      }
      this.owned.set(key, tp)
    }
    this.wake()
  }

  /**
   * A heartbeat besides kafkajs's own. A failed one (a rebalance in progress, say) is left to
   * kafkajs's loop: kafkajs records only successful heartbeats, so its next one goes out and sees it.
   */
  private heartbeatBesideProcessing(): void {
    if (this.closed || !this.heartbeatOf || Date.now() - this.lastPollMs >= this.maxPollIntervalMs) return
    this.heartbeatOf().catch(() => {})
  }

  private async onBatch({ batch, heartbeat, isStale, isRunning }: EachBatchPayload): Promise<void> {
    this.heartbeatOf = heartbeat
    const tp = { topic: batch.topic, partition: batch.partition }
    const key = tpKey(tp.topic, tp.partition)
    if (isStale() || !isRunning() || !this.owned.has(key)) return
    const admission = await this.guard.admit(tp, fetchedBatch(tp, batch))
    if (admission.kind === 'refetch') seekUnlessRejoining(this.consumer, tp, admission.from)
    // A seek while the batch was admitted (kafkajs holds it as pending until its next fetch) makes it stale.
    if (admission.kind !== 'take' || admission.records.length === 0 || isStale() || !this.owned.has(key)) return
    const records = admission.records
    const buffer = this.buffers.get(key)
    if (buffer) buffer.push(...records)
    else this.buffers.set(key, records)
    this.buffered += records.length
    this.wake()
    while (this.buffered >= this.maxBuffered && isRunning() && !this.closed) {
      await this.sleep(this.options.heartbeatIntervalMs)
      if (Date.now() - this.lastPollMs < this.maxPollIntervalMs) await heartbeat()
    }
  }

  private wake(): void {
    for (const w of this.wakers) w()
    this.wakers.clear()
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.wakers.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.wakers.add(done)
    })
  }

  private async runRebalanceSteps(): Promise<void> {
    while (this.steps.length > 0) {
      const step = this.steps.shift()!
      if (step.kind === 'generation') {
        this.commitGeneration.switchTo(step.identity)
        continue
      }
      if (step.kind === 'assigned') {
        for (const tp of step.partitions) this.assigned.set(tpKey(tp.topic, tp.partition), tp)
        await this.listener!.onPartitionsAssigned(step.partitions)
        continue
      }
      if (step.kind === 'lost') await this.listener!.onPartitionsLost(step.partitions)
      else await this.listener!.onPartitionsRevoked(step.partitions)
      for (const tp of step.partitions) {
        const key = tpKey(tp.topic, tp.partition)
        this.assigned.delete(key)
        this.positions.delete(key)
        this.guard.forget(key)
      }
    }
  }

  private drain(maxRecords: number): ConsumedRecord[] {
    const out: ConsumedRecord[] = []
    const keys = [...this.buffers.keys()].filter((k) => this.assigned.has(k))
    for (let i = 0; i < keys.length && out.length < maxRecords; i++) {
      const key = keys[(this.cursor + i) % keys.length]!
      const buffer = this.buffers.get(key)!
      const taken = buffer.splice(0, maxRecords - out.length)
      if (buffer.length === 0) this.buffers.delete(key)
      if (taken.length === 0) continue
      this.buffered -= taken.length
      this.positions.set(key, taken[taken.length - 1]!.offset + 1)
      out.push(...taken)
    }
    this.cursor = keys.length > 0 ? (this.cursor + 1) % keys.length : 0
    if (out.length > 0) this.wake()
    return out
  }

  async poll(maxRecords: number): Promise<ConsumedRecord[]> {
    if (!this.listener) throw new LogError('INVALID_REQUEST', 'subscribe before poll')
    if (this.closed) throw new LogError('INVALID_REQUEST', `consumer ${this.options.clientId} is closed`)
    this.lastPollMs = Date.now()
    if (this.crash)
      throw toLogError(this.crash, `consumer ${this.options.clientId} of group ${this.options.groupId} stopped`)
    if (this.groupAnswer.asked()) {
      this.heartbeatOf?.().catch(() => {})
      await this.groupAnswer.await(() => this.joins, {
        boundMs: this.rebalanceTimeoutMs,
        everyMs: this.pollWaitMs,
        stopped: () => this.closed || this.crash !== null,
        sleep: (ms) => this.sleep(ms),
      })
    }
    await this.runRebalanceSteps()
    let out = this.drain(maxRecords)
    if (out.length === 0 && this.steps.length === 0) {
      await this.sleep(this.pollWaitMs)
      if (this.steps.length === 0) out = this.drain(maxRecords)
    }
    this.lastPollMs = Date.now()
    return out
  }

  /** After a task migrated: the next poll waits for the group's answer first (group-answer.ts). */
  enforceRebalance(): void {
    this.groupAnswer.ask()
  }

  seek(tp: TopicPartition, offset: number): void {
    const key = tpKey(tp.topic, tp.partition)
    if (!this.assigned.has(key)) throw new LogError('INVALID_REQUEST', `${key} is not assigned to this consumer`)
    this.positions.set(key, offset)
    this.guard.startAt(key, offset)
    const buffer = this.buffers.get(key)
    if (buffer) {
      this.buffered -= buffer.length
      this.buffers.delete(key)
      this.wake()
    }
    seekUnlessRejoining(this.consumer, tp, offset)
  }

  position(tp: TopicPartition): number | undefined {
    return this.positions.get(tpKey(tp.topic, tp.partition))
  }

  assignment(): TopicPartition[] {
    return [...this.assigned.values()]
  }

  /**
   * Committed offsets through OffsetFetch v7 (kip447/stable-offsets.ts). Under read_committed it
   * sets require_stable, as the Java consumer does: offsets that another member's open transaction
   * is about to commit are waited for (exactly_once_v2: that member's producer is not fenced by
   * this owner's initTransactions, its transactional.id being its own).
   */
  async committed(partitions: TopicPartition[]): Promise<Map<string, number | null>> {
    const out = new Map<string, number | null>()
    if (partitions.length === 0) return out
    const topics = [...byTopic(partitions)].map(([topic, tps]) => ({
      topic,
      partitions: tps.map((tp) => tp.partition),
    }))
    const fetched = await mapErrors(`committed offsets of group ${this.options.groupId}`, () =>
      this.offsets.fetch(topics, this.options.isolationLevel === 'read_committed' ? 'require-stable' : 'last-stable'),
    )
    for (const tp of partitions) {
      const offset = fetched
        .find((t) => t.topic === tp.topic)
        ?.partitions.find((p) => p.partition === tp.partition)?.offset
      const n = offset === undefined ? -1 : Number(offset)
      out.set(tpKey(tp.topic, tp.partition), n >= 0 ? n : null)
    }
    return out
  }

  /**
   * OffsetCommit with the member's current generation: ILLEGAL_GENERATION after a rebalance it
   * missed. A refusal that came behind this member's own JoinGroup is committed again after the
   * join when the join kept the member and the commit's partitions (commit-after-join.ts);
   * otherwise (partitions moved, the member was dropped) the refusal stands.
   */
  async commitOffsets(offsets: OffsetToCommit[]): Promise<void> {
    if (offsets.length === 0) return
    const before = { joins: this.joins, memberId: this.memberId }
    try {
      await this.commitNow(offsets)
    } catch (e) {
      if (!isLogError(e, 'ILLEGAL_GENERATION') || !(await this.keptThroughRejoin(before, offsets))) throw e
      await this.commitNow(offsets)
    }
  }

  private async commitNow(offsets: OffsetToCommit[]): Promise<void> {
    const what = `commit offsets of group ${this.options.groupId}`
    try {
      await mapErrors(what, () =>
        this.consumer.commitOffsets(
          offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: String(o.offset) })),
        ),
      )
    } catch (e) {
      if (!isRejoining(e)) throw e
      // Its membership ended with the restart: the partitions are the group's to give again, as after
      // a session lost (Kafka's consumer answers UNKNOWN_MEMBER_ID then): the tasks migrate, uncommitted.
      throw new LogError('UNKNOWN_MEMBER_ID', `${what}: ${REJOINING}`)
    }
  }

  /**
   * Waits (at most a rebalance timeout) for the join that refused the commit; true when it
   * kept the member id and the commit's partitions.
   */
  private async keptThroughRejoin(
    before: { joins: number; memberId: string },
    offsets: readonly OffsetToCommit[],
  ): Promise<boolean> {
    const deadline = Date.now() + this.rebalanceTimeoutMs
    while (this.joins === before.joins && !this.closed && Date.now() < deadline) await this.sleep(this.pollWaitMs)
    return mayCommitAgainAfterJoin(
      before,
      { joins: this.joins, memberId: this.memberId, owned: new Set(this.owned.keys()) },
      offsets.map((o) => tpKey(o.topic, o.partition)),
    )
  }

  groupMetadata(): ConsumerGroupMetadata {
    return { groupId: this.options.groupId, ...this.commitGeneration.identity() }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    clearInterval(this.heartbeatTimer)
    this.heartbeatOf = null
    this.wake()
    await this.consumer.disconnect().catch(() => {})
    await this.offsets.close()
    this.assigned.clear()
    this.owned.clear()
    this.buffers.clear()
    this.buffered = 0
  }
}

/** What the guard needs of a kafkajs batch; kafkajs keeps the fetch offset on it but does not type it. */
function fetchedBatch(tp: TopicPartition, batch: EachBatchPayload['batch']): FetchedBatch {
  const records = batch.messages.map((m) => toConsumedRecord(tp, m))
  const fetched = Number(batch.fetchedOffset)
  const first = records[0]?.offset ?? Number(batch.lastOffset()) + 1
  return {
    fetchedOffset: Number.isFinite(fetched) ? fetched : first,
    nextFetchOffset: Number(batch.lastOffset()) + 1,
    records,
  }
}

/**
 * What kafkajs answers a consumer's calls between a retriable failure of its own loop (a broker gone
 * past its retries, say) and the restart it then makes by itself: its group is not there.
 */
const KAFKAJS_NO_GROUP = 'Consumer group was not initialized'
const REJOINING =
  'the consumer is rejoining its group after a retriable failure of its fetch loop (kafkajs restarts it), ' +
  'and will join as a new member'

/** Whether a kafkajs consumer call failed because the consumer is restarting (KAFKAJS_NO_GROUP). */
export function isRejoining(e: unknown): boolean {
  return e instanceof Error && e.message.includes(KAFKAJS_NO_GROUP)
}

/**
 * Moves kafkajs's fetch position; while the consumer restarts there is none to move, and the
 * rejoin assigns its partitions afresh (a new member keeps nothing), so the position kept here is
 * all there is to set.
 */
function seekUnlessRejoining(consumer: Consumer, tp: TopicPartition, offset: number): void {
  try {
    consumer.seek({ topic: tp.topic, partition: tp.partition, offset: String(offset) })
  } catch (e) {
    if (!isRejoining(e)) throw e
  }
}
