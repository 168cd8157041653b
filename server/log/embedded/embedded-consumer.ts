// The embedded log's consumer in a group: heartbeats (from a background loop, as Kafka's
// heartbeat thread), rebalance callbacks run inside poll(), and fetches from each assigned
// partition's position. A poll returns, per partition, the records from its position on, in
// offset order, with nothing skipped but what the isolation level hides (markers, aborted
// records) and what compaction removed: the position guarantee of the log seam by construction.

import { LogError, isLogError } from '../errors.ts'
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
import type { EmbeddedConnection } from './embedded-connection.ts'
import type { HeartbeatResult } from './group-coordinator.ts'
import { recordsCostMs } from './latency-model.ts'

const UNSTABLE_OFFSET_RETRY_MS = 10
const EMPTY_FETCH_WAIT_MS = 2

export class EmbeddedConsumer implements LogConsumer {
  private memberId: string | null = null
  private generationId = -1
  private listener: RebalanceListener | null = null
  private topics: string[] = []
  private readonly assigned = new Map<string, TopicPartition>()
  private readonly positions = new Map<string, number>()
  private lastHeartbeatMs = Number.NEGATIVE_INFINITY
  private cursor = 0

  constructor(
    private readonly conn: EmbeddedConnection,
    private readonly options: ConsumerOptions,
  ) {}

  private get group() {
    return this.conn.cluster.group(this.options.groupId)
  }

  async subscribe(topics: string[], listener: RebalanceListener): Promise<void> {
    this.topics = topics
    this.listener = listener
    await this.join()
    void this.heartbeatThread()
  }

  /**
   * Kafka's consumer heartbeats from a background thread, so a worker busy restoring or waiting
   * still keeps its session; a killed or paused (SIGSTOP) process sends none. Assignment changes
   * are picked up by the next poll, as in Kafka.
   */
  private async heartbeatThread(): Promise<void> {
    const c = this.conn.cluster
    try {
      while (this.memberId !== null) {
        await c.time.sleep(this.options.heartbeatIntervalMs)
        await this.conn.process.gate()
        if (this.memberId !== null) this.group.touch(this.memberId)
      }
    } catch {
      // the process was killed: its heartbeats stop with it
    }
  }

  private async join(): Promise<void> {
    const c = this.conn.cluster
    await this.conn.request(c.latency.requestMs, () => {
      const tps: TopicPartition[] = []
      for (const t of this.topics) for (let p = 0; p < c.partitionCount(t); p++) tps.push({ topic: t, partition: p })
      this.group.setPartitions(tps)
      const r = this.group.join(this.options.clientId, this.options.sessionTimeoutMs)
      this.memberId = r.memberId
      this.generationId = r.generationId
    })
    this.lastHeartbeatMs = c.time.now()
  }

  memberIdOrNull(): string | null {
    return this.memberId
  }

  private async heartbeatAndRebalance(): Promise<void> {
    const c = this.conn.cluster
    if (this.memberId === null) throw new LogError('UNKNOWN_MEMBER_ID', 'subscribe first')
    let hb: HeartbeatResult
    try {
      this.conn.process.check()
      hb = this.group.heartbeat(this.memberId)
    } catch (e) {
      if (!isLogError(e, 'UNKNOWN_MEMBER_ID')) throw e
      await this.rejoinAfterLoss()
      return
    }
    this.lastHeartbeatMs = c.time.now()
    this.generationId = hb.generationId
    if (hb.revoke.length > 0) {
      await this.listener!.onPartitionsRevoked(hb.revoke)
      this.forget(hb.revoke)
      await this.conn.request(c.latency.requestMs, () => this.group.release(this.memberId!, hb.revoke))
    }
    if (hb.assign.length > 0) {
      for (const tp of hb.assign) this.assigned.set(tpKey(tp.topic, tp.partition), tp)
      await this.listener!.onPartitionsAssigned(hb.assign)
    }
  }

  /** Dropped from the group: the partitions are lost (no commit possible), then rejoin. */
  private async rejoinAfterLoss(): Promise<void> {
    const lost = [...this.assigned.values()]
    this.forget(lost)
    if (lost.length > 0) await this.listener!.onPartitionsLost(lost)
    await this.join()
  }

  private forget(tps: readonly TopicPartition[]): void {
    for (const tp of tps) {
      this.assigned.delete(tpKey(tp.topic, tp.partition))
      this.positions.delete(tpKey(tp.topic, tp.partition))
    }
  }

  async poll(maxRecords: number): Promise<ConsumedRecord[]> {
    const c = this.conn.cluster
    await this.conn.process.gate()
    // The heartbeat thread of a Kafka consumer; it stops when the process is killed or paused.
    if (c.time.now() - this.lastHeartbeatMs >= this.options.heartbeatIntervalMs || this.assigned.size === 0)
      await this.heartbeatAndRebalance()
    const parts = [...this.assigned.entries()].filter(([k]) => this.positions.has(k))
    const out =
      parts.length > 0 ? await this.conn.request(c.latency.requestMs, () => this.fetchOnce(parts, maxRecords)) : []
    if (out.length > 0 && this.conn.faults.positionRewinds.take()) this.rewindTo(out)
    if (out.length === 0)
      await c.time.sleep(Math.max(c.latency.emptyFetchWaitMs ?? EMPTY_FETCH_WAIT_MS, c.latency.requestMs))
    else if (recordsCostMs(c.latency, out.length) > 0) await c.time.sleep(recordsCostMs(c.latency, out.length))
    else await c.time.yield()
    await this.conn.process.gate()
    return out
  }

  /** The positionRewinds fault point: each partition's position goes back to the first record it just handed out. */
  private rewindTo(records: readonly ConsumedRecord[]): void {
    const first = new Map<string, number>()
    for (const r of records)
      if (!first.has(tpKey(r.topic, r.partition))) first.set(tpKey(r.topic, r.partition), r.offset)
    for (const [k, offset] of first) if (this.positions.has(k)) this.positions.set(k, offset)
  }

  /**
   * One fetch round over the partitions, starting at a rotating one so that none starves. The first partition's records
   * are taken as they come (on a backlog it fills the poll alone).
   */
  private fetchOnce(parts: [string, TopicPartition][], maxRecords: number): ConsumedRecord[] {
    const c = this.conn.cluster
    let out: ConsumedRecord[] = []
    for (let i = 0; i < parts.length && out.length < maxRecords; i++) {
      const [k, tp] = parts[(this.cursor + i) % parts.length]!
      const r = c.fetch(tp, this.positions.get(k)!, maxRecords - out.length, this.options.isolationLevel)
      if (out.length === 0) out = r.records
      else for (const rec of r.records) out.push(rec)
      this.positions.set(k, r.nextOffset)
    }
    this.cursor = (this.cursor + 1) % parts.length
    return out
  }

  seek(tp: TopicPartition, offset: number): void {
    const k = tpKey(tp.topic, tp.partition)
    if (!this.assigned.has(k)) throw new LogError('INVALID_REQUEST', `${k} is not assigned to this consumer`)
    this.positions.set(k, offset)
  }
  position(tp: TopicPartition): number | undefined {
    return this.positions.get(tpKey(tp.topic, tp.partition))
  }
  assignment(): TopicPartition[] {
    return [...this.assigned.values()]
  }

  async committed(partitions: TopicPartition[]): Promise<Map<string, number | null>> {
    const c = this.conn.cluster
    for (;;) {
      try {
        return await this.conn.request(c.latency.requestMs, () => {
          c.txnCoordinator.expireTimedOut()
          return this.group.fetchCommittedStable(partitions)
        })
      } catch (e) {
        if (!isLogError(e, 'UNSTABLE_OFFSET_COMMIT')) throw e
        await c.time.sleep(UNSTABLE_OFFSET_RETRY_MS)
      }
    }
  }

  async commitOffsets(offsets: OffsetToCommit[]): Promise<void> {
    if (offsets.length === 0) return
    const c = this.conn.cluster
    await this.conn.request(c.latency.requestMs, () => {
      if (this.conn.faults.commitFailures.take())
        throw new LogError(
          'BROKER_NOT_AVAILABLE',
          `commit offsets of group ${this.options.groupId}: the coordinator's broker is down`,
        )
      if (this.conn.faults.fatalCommitFailures.take())
        throw new LogError('INVALID_REQUEST', `commit offsets of group ${this.options.groupId}: refused for good`)
      return this.group.commitOffsets(this.memberId!, this.generationId, offsets)
    })
  }

  enforceRebalance(): void {
    this.lastHeartbeatMs = Number.NEGATIVE_INFINITY
  }

  groupMetadata(): ConsumerGroupMetadata {
    return { groupId: this.options.groupId, memberId: this.memberId ?? '', generationId: this.generationId }
  }

  async close(): Promise<void> {
    const c = this.conn.cluster
    if (this.memberId === null) return
    const id = this.memberId
    this.memberId = null
    await this.conn.request(c.latency.requestMs, () => this.group.leave(id))
  }
}
