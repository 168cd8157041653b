// Clients of the embedded log, bound to one process: producer (idempotent, transactional),
// consumer in a group, reader, inspector and admin. Each request passes the process's gate and
// costs the latency model's time.

import { LogError, isLogError } from '../errors.ts'
import type {
  ConsumedRecord,
  ConsumerGroupMetadata,
  ConsumerOptions,
  LogAdmin,
  LogConnection,
  LogConsumer,
  LogInspector,
  LogProducer,
  LogReader,
  OffsetToCommit,
  PartitionOffsets,
  ProduceRecord,
  ProducerIdentity,
  ProducerOptions,
  RebalanceListener,
  RecordMetadata,
  StoredRecordView,
  TopicPartition,
  TopicSpec,
} from '../types.ts'
import { tpKey } from '../types.ts'
import type { IsolationLevel } from '../../../lib/streams-config.ts'
import type { EmbeddedCluster, ProduceBatch } from './embedded-cluster.ts'
import { NO_PRODUCER_ID, NO_SEQUENCE, type DataRecord } from './partition-log.ts'
import { endTxnCostMs } from './latency-model.ts'
import type { ProcessHandle } from './process-handle.ts'
import { EMBEDDED_CAPABILITIES } from './capabilities.ts'

/** Fault-injection points of the embedded log that act on the clients. */
export class ClientFaults {
  private acksToDrop = 0
  private readonly listeners: ((e: AckDropped) => void)[] = []
  /** Drops the responses of the next n produce requests after the broker appended them. */
  dropNextAcks(n: number): void {
    this.acksToDrop += n
  }
  pendingAckDrops(): number {
    return this.acksToDrop
  }
  takeAckDrop(): boolean {
    if (this.acksToDrop <= 0) return false
    this.acksToDrop--
    return true
  }
  onAckDropped(l: (e: AckDropped) => void): void {
    this.listeners.push(l)
  }
  notify(e: AckDropped): void {
    for (const l of this.listeners) l(e)
  }
}

export interface AckDropped {
  clientId: string
  producerId: number
  epoch: number
  idempotent: boolean
  batches: { topic: string; partition: number; baseSequence: number; baseOffset: number; count: number }[]
  atMs: number
}

/** How long a producer waits for a response it will never get before it retries (request.timeout.ms, shortened). */
const ACK_TIMEOUT_MS = 20
const UNSTABLE_OFFSET_RETRY_MS = 10
const EMPTY_FETCH_WAIT_MS = 2

export class EmbeddedConnection implements LogConnection {
  readonly backend = 'embedded' as const
  readonly capabilities = EMBEDDED_CAPABILITIES
  constructor(
    readonly cluster: EmbeddedCluster,
    readonly process: ProcessHandle,
    readonly faults: ClientFaults,
  ) {}

  /** One request: gate, apply at the broker, wait out the round trip, gate again (a lost response). */
  async request<T>(costMs: number, apply: () => T): Promise<T> {
    await this.process.gate()
    const result = apply()
    if (costMs > 0) await this.cluster.time.sleep(costMs)
    await this.process.gate()
    return result
  }

  admin(): LogAdmin {
    return new EmbeddedAdmin(this)
  }
  producer(options: ProducerOptions): LogProducer {
    return new EmbeddedProducer(this, options)
  }
  consumer(options: ConsumerOptions): LogConsumer {
    return new EmbeddedConsumer(this, options)
  }
  reader(): LogReader {
    return new EmbeddedReader(this)
  }
  inspector(): LogInspector {
    return new EmbeddedInspector(this.cluster)
  }
}

class EmbeddedAdmin implements LogAdmin {
  constructor(private readonly conn: EmbeddedConnection) {}
  async createTopics(topics: TopicSpec[]): Promise<void> {
    await this.conn.request(this.conn.cluster.latency.requestMs, () => {
      for (const t of topics) {
        if (this.conn.cluster.hasTopic(t.topic)) {
          if (this.conn.cluster.partitionCount(t.topic) !== t.partitions) {
            throw new LogError('TOPIC_ALREADY_EXISTS', `topic ${t.topic} exists with ${this.conn.cluster.partitionCount(t.topic)} partitions, not ${t.partitions}`)
          }
          continue
        }
        this.conn.cluster.createTopic(t)
      }
    })
  }
  async deleteTopics(topics: string[]): Promise<void> {
    await this.conn.request(this.conn.cluster.latency.requestMs, () => topics.forEach((t) => this.conn.cluster.deleteTopic(t)))
  }
}

// ---- producer -------------------------------------------------------------------------------

type ProducerState = 'UNINITIALIZED' | 'READY' | 'TRANSACTING' | 'COMMITTING' | 'ABORTING' | 'FENCED' | 'CLOSED'

/** The client's transaction state machine as data: each call and the states it is legal in. */
const LEGAL_STATES: Record<'initTransactions' | 'beginTransaction' | 'send' | 'sendOffsets' | 'commit' | 'abort', readonly ProducerState[]> = {
  initTransactions: ['UNINITIALIZED', 'READY'],
  beginTransaction: ['READY'],
  send: ['TRANSACTING'],
  sendOffsets: ['TRANSACTING'],
  commit: ['TRANSACTING'],
  abort: ['TRANSACTING', 'COMMITTING', 'ABORTING', 'READY'],
}

class EmbeddedProducer implements LogProducer {
  private state: ProducerState = 'UNINITIALIZED'
  private producerId = NO_PRODUCER_ID
  private epoch = 0
  private readonly sequences = new Map<string, number>()
  private readonly txnPartitions = new Set<string>()
  private readonly transactionalId: string | null
  private initialized = false

  constructor(
    private readonly conn: EmbeddedConnection,
    private readonly options: ProducerOptions,
  ) {
    this.transactionalId = options.transactionalId ?? null
    if (this.transactionalId !== null && !options.idempotent) {
      throw new LogError('INVALID_REQUEST', 'a transactional producer must be idempotent (enable.idempotence=true)')
    }
  }

  identity(): ProducerIdentity | null {
    return this.producerId === NO_PRODUCER_ID ? null : { transactionalId: this.transactionalId, producerId: this.producerId, epoch: this.epoch }
  }

  private require(call: keyof typeof LEGAL_STATES): void {
    if (this.state === 'FENCED') throw new LogError('PRODUCER_FENCED', `producer ${this.producerId} (${this.transactionalId}) was fenced; close it and create a new one`)
    if (!LEGAL_STATES[call].includes(this.state)) {
      throw new LogError('INVALID_TXN_STATE', `${call} is not legal in state ${this.state} (${this.transactionalId ?? this.options.clientId})`)
    }
  }

  private fail(e: unknown): never {
    if (isLogError(e, 'PRODUCER_FENCED')) this.state = 'FENCED'
    throw e
  }

  async initTransactions(): Promise<ProducerIdentity> {
    if (this.transactionalId === null) throw new LogError('INVALID_REQUEST', 'initTransactions needs a transactional.id')
    this.require('initTransactions')
    const c = this.conn.cluster
    const r = await this.conn.request(c.latency.requestMs, () => c.initProducerId(this.transactionalId, this.options.transactionTimeoutMs ?? 60_000))
    this.producerId = r.producerId
    this.setEpoch(r.epoch)
    this.state = 'READY'
    this.initialized = true
    return this.identity()!
  }

  private setEpoch(epoch: number): void {
    if (epoch !== this.epoch) this.sequences.clear()
    this.epoch = epoch
  }

  beginTransaction(): void {
    this.require('beginTransaction')
    this.txnPartitions.clear()
    this.state = 'TRANSACTING'
  }

  private async ensureIdempotentInit(): Promise<void> {
    if (this.initialized) return
    if (this.options.idempotent) {
      const c = this.conn.cluster
      const r = await this.conn.request(c.latency.requestMs, () => c.initProducerId(null, 0))
      this.producerId = r.producerId
      this.epoch = r.epoch
    }
    this.initialized = true
    this.state = 'READY'
  }

  async send(records: ProduceRecord[]): Promise<RecordMetadata[]> {
    if (records.length === 0) return []
    if (this.transactionalId !== null) this.require('send')
    else {
      if (this.state === 'CLOSED') throw new LogError('INVALID_REQUEST', 'producer is closed')
      await this.ensureIdempotentInit()
    }
    const c = this.conn.cluster
    try {
      // Group into one batch per partition, in order (records are passed on as they are: no copies).
      const byPartition = new Map<string, { tp: TopicPartition; records: DataRecord[]; indexes: number[] }>()
      let lastTopic = ''
      let lastPartition = -1
      let last: { tp: TopicPartition; records: DataRecord[]; indexes: number[] } | undefined
      for (let i = 0; i < records.length; i++) {
        const r = records[i]!
        if (r.partition !== lastPartition || r.topic !== lastTopic || !last) {
          const k = tpKey(r.topic, r.partition)
          last = byPartition.get(k)
          if (!last) byPartition.set(k, (last = { tp: { topic: r.topic, partition: r.partition }, records: [], indexes: [] }))
          lastTopic = r.topic
          lastPartition = r.partition
        }
        last.records.push(r)
        last.indexes.push(i)
      }
      if (this.transactionalId !== null) {
        const added: TopicPartition[] = []
        for (const [k, g] of byPartition) if (!this.txnPartitions.has(k)) added.push(g.tp)
        if (added.length > 0) {
          const tid = this.transactionalId
          await this.conn.request(c.latency.requestMs, () => c.addPartitionsToTxn(tid, this.producerId, this.epoch, added))
          for (const tp of added) this.txnPartitions.add(tpKey(tp.topic, tp.partition))
        }
      }
      const batches: ProduceBatch[] = []
      for (const [k, g] of byPartition) {
        let baseSequence = NO_SEQUENCE
        if (this.options.idempotent) {
          baseSequence = this.sequences.get(k) ?? 0
          this.sequences.set(k, baseSequence + g.records.length)
        }
        batches.push({ topic: g.tp.topic, partition: g.tp.partition, baseSequence, records: g.records })
      }
      const request = { producerId: this.options.idempotent ? this.producerId : NO_PRODUCER_ID, epoch: this.epoch, transactionalId: this.transactionalId, batches }
      let results = await this.conn.request(0, () => c.produce(request))
      // The ack can be lost after the broker appended: the producer times out and sends the same request again.
      while (this.conn.faults.takeAckDrop()) {
        this.conn.faults.notify({
          clientId: this.options.clientId,
          producerId: request.producerId,
          epoch: this.epoch,
          idempotent: this.options.idempotent,
          batches: batches.map((b, i) => ({ topic: b.topic, partition: b.partition, baseSequence: b.baseSequence, baseOffset: results[i]!.baseOffset, count: b.records.length })),
          atMs: c.time.now(),
        })
        await c.time.sleep(ACK_TIMEOUT_MS)
        results = await this.conn.request(0, () => c.produce(request))
      }
      if (c.latency.requestMs > 0) await this.conn.request(c.latency.requestMs, () => undefined)
      const out: RecordMetadata[] = new Array(records.length)
      let bi = 0
      for (const g of byPartition.values()) {
        const base = results[bi++]!.baseOffset
        for (let j = 0; j < g.indexes.length; j++) out[g.indexes[j]!] = { topic: g.tp.topic, partition: g.tp.partition, offset: base + j }
      }
      return out
    } catch (e) {
      this.fail(e)
    }
  }

  async sendOffsetsToTransaction(offsets: OffsetToCommit[], group: ConsumerGroupMetadata): Promise<void> {
    this.require('sendOffsets')
    const c = this.conn.cluster
    const tid = this.transactionalId!
    try {
      await this.conn.request(c.latency.requestMs, () => c.addOffsetsToTxn(tid, this.producerId, this.epoch, group.groupId))
      const member = group.generationId >= 0 ? { memberId: group.memberId, generationId: group.generationId } : null
      await this.conn.request(c.latency.requestMs, () => c.txnOffsetCommit(tid, this.producerId, this.epoch, group.groupId, offsets, member))
    } catch (e) {
      this.fail(e)
    }
  }

  async commitTransaction(): Promise<void> {
    this.require('commit')
    await this.endTxn(true)
  }

  async abortTransaction(): Promise<void> {
    this.require('abort')
    if (this.state === 'READY') return
    await this.endTxn(false)
  }

  private async endTxn(commit: boolean): Promise<void> {
    const c = this.conn.cluster
    const tid = this.transactionalId!
    this.state = commit ? 'COMMITTING' : 'ABORTING'
    try {
      const markers = this.txnPartitions.size + 1
      const r = await this.conn.request(endTxnCostMs(c.latency, markers), () => c.endTxn(tid, this.producerId, this.epoch, commit))
      this.setEpoch(r.epoch)
      this.txnPartitions.clear()
      this.state = 'READY'
    } catch (e) {
      this.fail(e)
    }
  }

  async close(): Promise<void> {
    this.state = 'CLOSED'
  }
}

// ---- consumer -------------------------------------------------------------------------------

class EmbeddedConsumer implements LogConsumer {
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
    let hb
    try {
      this.conn.process.check()
      hb = this.group.heartbeat(this.memberId)
    } catch (e) {
      if (!isLogError(e, 'UNKNOWN_MEMBER_ID')) throw e
      // Dropped from the group: the partitions are lost (no commit possible), then rejoin.
      const lost = [...this.assigned.values()]
      this.assigned.clear()
      this.positions.clear()
      if (lost.length > 0) await this.listener!.onPartitionsLost(lost)
      await this.join()
      return
    }
    this.lastHeartbeatMs = c.time.now()
    this.generationId = hb.generationId
    if (hb.revoke.length > 0) {
      await this.listener!.onPartitionsRevoked(hb.revoke)
      for (const tp of hb.revoke) {
        this.assigned.delete(tpKey(tp.topic, tp.partition))
        this.positions.delete(tpKey(tp.topic, tp.partition))
      }
      await this.conn.request(c.latency.requestMs, () => this.group.release(this.memberId!, hb.revoke))
    }
    if (hb.assign.length > 0) {
      for (const tp of hb.assign) this.assigned.set(tpKey(tp.topic, tp.partition), tp)
      await this.listener!.onPartitionsAssigned(hb.assign)
    }
  }

  async poll(maxRecords: number): Promise<ConsumedRecord[]> {
    const c = this.conn.cluster
    await this.conn.process.gate()
    // The heartbeat thread of a Kafka consumer; it stops when the process is killed or paused.
    if (c.time.now() - this.lastHeartbeatMs >= this.options.heartbeatIntervalMs || this.assigned.size === 0) await this.heartbeatAndRebalance()
    const parts = [...this.assigned.entries()].filter(([k]) => this.positions.has(k))
    const out: ConsumedRecord[] = []
    if (parts.length > 0) {
      const fetchOnce = () => {
        for (let i = 0; i < parts.length && out.length < maxRecords; i++) {
          const [k, tp] = parts[(this.cursor + i) % parts.length]!
          const r = c.fetch(tp, this.positions.get(k)!, maxRecords - out.length, this.options.isolationLevel)
          for (const rec of r.records) out.push(rec)
          this.positions.set(k, r.nextOffset)
        }
        this.cursor = (this.cursor + 1) % parts.length
      }
      await this.conn.request(c.latency.requestMs, fetchOnce)
    }
    if (out.length === 0) await c.time.sleep(Math.max(EMPTY_FETCH_WAIT_MS, c.latency.requestMs))
    else await c.time.yield()
    await this.conn.process.gate()
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
          return this.group.fetchCommitted(partitions, true)
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
    await this.conn.request(c.latency.requestMs, () => this.group.commitOffsets(this.memberId!, this.generationId, offsets))
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

// ---- reader and inspector -------------------------------------------------------------------

class EmbeddedReader implements LogReader {
  constructor(private readonly conn: EmbeddedConnection) {}
  async offsets(tp: TopicPartition): Promise<PartitionOffsets> {
    const c = this.conn.cluster
    return this.conn.request(c.latency.requestMs, () => {
      c.txnCoordinator.expireTimedOut()
      return c.partitionLog(tp).offsets()
    })
  }
  async read(tp: TopicPartition, from: number, maxRecords: number, isolation: IsolationLevel) {
    const c = this.conn.cluster
    return this.conn.request(c.latency.requestMs, () => c.fetch(tp, from, maxRecords, isolation))
  }
}

class EmbeddedInspector implements LogInspector {
  constructor(private readonly cluster: EmbeddedCluster) {}
  async topics() {
    return this.cluster.topicSpecs().map((s) => ({ topic: s.topic, partitions: s.partitions }))
  }
  async offsets(tp: TopicPartition): Promise<PartitionOffsets> {
    return this.cluster.partitionLog(tp).offsets()
  }
  async readRaw(tp: TopicPartition, from: number, to: number, maxRecords: number): Promise<StoredRecordView[]> {
    return this.cluster.partitionLog(tp).readRaw(from, to, maxRecords)
  }
  async committedOffsets(groupId: string): Promise<OffsetToCommit[]> {
    return this.cluster.group(groupId).allCommitted()
  }
}
