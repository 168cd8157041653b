// `eoscope observe`: an application eoscope did not start (a Kafka Streams app, say), watched
// read-only from its application.id. Each sample reads:
// - its group (group id = application.id): state and members with their assignment (DescribeGroups),
//   and the generations the coordinator wrote to __consumer_offsets (generation-history.ts);
// - its transactional ids (those starting with `<application.id>-`, as Kafka Streams names them)
//   as their coordinators hold them (KIP-664 DescribeTransactions), and every open transaction on
//   its topics classified ongoing, overdue or hanging (find-hanging's rule);
// - per partition of its input (the assignment's topics, or --input), output (--output) and
//   internal topics (`<application.id>-...-changelog|-repartition`): log start, LSO, HW; the
//   group's committed offset and lag on input partitions; the COMMIT and ABORT markers written
//   since the observer started (control records read from the log);
// - throughput: committed input offsets per second between the first sample and this one;
// - when told its topics' record format, the validator on them (observe-validation.ts).
// Nothing is written, and no group is joined.

import { describeTransactions, type TransactionsSource } from '../log/find-hanging.ts'
import type { GroupDescription } from '../log/group-description.ts'
import type { OpenTransaction } from '../log/hanging-transactions.ts'
import type { CoordinatorTransaction, LogInspector, PartitionOffsets, TopicPartition } from '../log/types.ts'
import { openSinceMs } from '../log/transaction-states.ts'
import {
  GenerationHistory,
  type GroupDeleted,
  type ObservedGeneration,
  type OffsetsTopicRecord,
} from './generation-history.ts'
import { offsetsPartitionOf } from './group-metadata-record.ts'
import { type ObservedValidation, ObserveValidation, type ValidationTarget } from './observe-validation.ts'

export const OFFSETS_TOPIC = '__consumer_offsets'
/** Control records read per partition per sample at most; the rest waits for the next sample. */
const MARKER_SCAN_LIMIT = 20_000

export interface ObserveSource {
  inspector: Required<Pick<LogInspector, 'topics' | 'offsets' | 'readRaw' | 'committedOffsets' | 'describeGroup'>>
  transactions: TransactionsSource
  /**
   * One read of a __consumer_offsets partition from an offset (read_uncommitted): its data records,
   * where the next read starts (past the control records too: transactional offset commits leave
   * COMMIT and ABORT markers there, and a read may return nothing else), and the high watermark.
   */
  readOffsetsTopic(partition: number, from: number): Promise<OffsetsTopicRecordPage>
}

/** One read of a __consumer_offsets partition. */
export interface OffsetsTopicRecordPage {
  records: OffsetsTopicRecord[]
  /** Where the next read starts: past every record read, control markers included. */
  nextOffset: number
  highWatermark: number
}

export interface ObserveTarget {
  applicationId: string
  /** Topics the application writes (its sinks): not discoverable from the group. */
  output: string[]
  /** Topics it reads, besides those its members are assigned. */
  input: string[]
  /** Run the validator on these topics (their record format known). */
  validation?: ValidationTarget
}

export type TopicRole = 'input' | 'output' | 'internal'

export interface ObservedPartition extends TopicPartition, PartitionOffsets {
  role: TopicRole
  /** The group's committed offset (input partitions); null when none is committed. */
  committed: number | null
  /** HW − committed offset (input partitions with a committed offset). */
  lag: number | null
  /** COMMIT and ABORT markers written to this partition since the observer's first sample. */
  commitMarkers: number
  abortMarkers: number
}

export interface ObservedTransaction extends CoordinatorTransaction {
  /** How long its open transaction has run (startTimeMs to the sample); null when none is open. */
  openForMs: number | null
}

export interface ApplicationSample {
  atMs: number
  applicationId: string
  group: {
    state: GroupDescription['state']
    protocol: string
    members: GroupDescription['members']
    /**
     * The latest generation the coordinator wrote (null: none seen yet). DescribeGroups has none for a classic group.
     */
    generation: number | null
    generations: readonly (ObservedGeneration | GroupDeleted)[]
  }
  transactions: ObservedTransaction[]
  open: OpenTransaction[]
  hanging: OpenTransaction[]
  partitions: ObservedPartition[]
  totals: {
    commitMarkers: number
    abortMarkers: number
    /** Input records whose offsets the group committed since the first sample. */
    committedInput: number
    /** committedInput over the time since the first sample; null at the first sample. */
    committedPerSecond: number | null
    lag: number
  }
  /** The validator's figures as of this sample; null when not asked for, or when it could not run (a note says why). */
  validation: ObservedValidation | null
  /** Why a figure is missing or incomplete, in words; empty when nothing is. */
  notes: string[]
}

/** Internal topics Kafka Streams names after the application: changelogs and repartition topics. */
export function isInternalTopic(applicationId: string, topic: string): boolean {
  return topic.startsWith(`${applicationId}-`) && (topic.endsWith('-changelog') || topic.endsWith('-repartition'))
}

export class ApplicationObserver {
  private readonly history: GenerationHistory
  private offsetsPartition: number | null = null
  /** Per partition key: where the marker scan goes on, and the counts so far. */
  private readonly scans = new Map<string, { position: number; commits: number; aborts: number }>()
  private first: { atMs: number; committed: Map<string, number> } | null = null
  private readonly validation: ObserveValidation | null

  constructor(
    private readonly source: ObserveSource,
    readonly target: ObserveTarget,
    private readonly now: () => number = Date.now,
  ) {
    if (!/^[A-Za-z0-9._-]+$/.test(target.applicationId))
      throw new RangeError(
        `application id ${JSON.stringify(target.applicationId)} is not a Kafka group id eoscope can observe ` +
          `(letters, digits, . _ -)`,
      )
    this.history = new GenerationHistory(target.applicationId)
    this.validation = target.validation
      ? new ObserveValidation(source.inspector, target.applicationId, target.validation)
      : null
  }

  async sample(): Promise<ApplicationSample> {
    const { applicationId } = this.target
    const notes: string[] = []
    const topics = await this.source.inspector.topics()
    const counts = new Map(topics.map((t) => [t.topic, t.partitions]))
    await this.readGenerations(counts.get(OFFSETS_TOPIC) ?? 0, notes)
    const group = await this.source.inspector.describeGroup(applicationId)
    const assigned = new Set(group.members.flatMap((m) => m.assignment.map((tp) => tp.topic)))
    const roles = new Map<string, TopicRole>()
    for (const t of topics) if (isInternalTopic(applicationId, t.topic)) roles.set(t.topic, 'internal')
    for (const t of [...assigned, ...this.target.input]) if (!roles.has(t)) roles.set(t, 'input')
    for (const t of this.target.output) roles.set(t, 'output')
    for (const [t] of roles) if (!counts.has(t)) notes.push(`topic ${t} does not exist`)
    const partitions: TopicPartition[] = [...roles.keys()]
      .filter((t) => counts.has(t))
      .sort()
      .flatMap((topic) => Array.from({ length: counts.get(topic)! }, (_, partition) => ({ topic, partition })))
    const committedList = await this.source.inspector.committedOffsets(applicationId)
    const committed = new Map(committedList.map((o) => [`${o.topic}-${o.partition}`, o.offset]))
    const atMs = this.now()
    const report = await describeTransactions(
      this.source.transactions,
      partitions,
      { transactionalIdPrefix: `${applicationId}-` },
      atMs,
    )
    const observed: ObservedPartition[] = []
    for (const tp of partitions) {
      const key = `${tp.topic}-${tp.partition}`
      const offsets = await this.source.inspector.offsets(tp)
      const scan = await this.scanMarkers(tp, offsets)
      const role = roles.get(tp.topic)!
      const c = role === 'input' ? (committed.get(key) ?? null) : null
      observed.push({
        ...tp,
        ...offsets,
        role,
        committed: c,
        lag: c === null ? null : Math.max(0, offsets.highWatermark - c),
        commitMarkers: scan.commits,
        abortMarkers: scan.aborts,
      })
    }
    if (!this.first) this.first = { atMs, committed }
    let committedInput = 0
    for (const [key, offset] of committed)
      if (roles.get(key.slice(0, key.lastIndexOf('-'))) === 'input')
        committedInput += offset - (this.first.committed.get(key) ?? 0)
    const elapsedMs = atMs - this.first.atMs
    const transactions = report.coordinators
      .filter((t) => t.transactionalId.startsWith(`${applicationId}-`))
      .map((t) => ({
        ...t,
        openForMs: openSinceMs(t.state, t.startTimeMs) >= 0 ? Math.max(0, atMs - t.startTimeMs) : null,
      }))
      .sort((a, b) => a.transactionalId.localeCompare(b.transactionalId))
    if (group.members.length === 0)
      notes.push(`group ${applicationId} has no members (${group.state}): the application is not running`)
    const validation = await this.validate(transactions.length > 0 ? 'exactly-once' : 'at-least-once', notes)
    return {
      atMs,
      applicationId,
      group: {
        state: group.state,
        protocol: group.protocol,
        members: group.members,
        generation: this.history.current()?.generation ?? null,
        generations: [...this.history.history()],
      },
      transactions,
      open: report.open,
      hanging: report.open.filter((t) => t.verdict === 'hanging'),
      partitions: observed,
      totals: {
        commitMarkers: observed.reduce((n, p) => n + p.commitMarkers, 0),
        abortMarkers: observed.reduce((n, p) => n + p.abortMarkers, 0),
        committedInput,
        committedPerSecond: elapsedMs > 0 ? (committedInput * 1000) / elapsedMs : null,
        lag: observed.reduce((n, p) => n + (p.lag ?? 0), 0),
      },
      validation,
      notes,
    }
  }

  /** The validator's figures, judged as the application's producers tell (transactional ids: exactly-once). */
  private async validate(
    judgedAs: ObservedValidation['judgedAs'],
    notes: string[],
  ): Promise<ObservedValidation | null> {
    if (!this.validation) return null
    try {
      return await this.validation.check(judgedAs)
    } catch (e) {
      notes.push(`the validator could not run: ${e instanceof Error ? e.message : String(e)}`)
      return null
    }
  }

  /** The group's __consumer_offsets partition, read from where the last sample stopped to its high watermark. */
  private async readGenerations(offsetsPartitions: number, notes: string[]): Promise<void> {
    if (offsetsPartitions === 0) {
      notes.push(
        `${OFFSETS_TOPIC} is not visible (no group has committed yet, or this client may not describe it): no ` +
          `generations`,
      )
      return
    }
    this.offsetsPartition ??= offsetsPartitionOf(this.target.applicationId, offsetsPartitions)
    for (let reads = 0; reads < 1_000; reads++) {
      const from = this.history.nextOffset()
      const { records, nextOffset, highWatermark } = await this.source.readOffsetsTopic(this.offsetsPartition, from)
      this.history.fold(records)
      this.history.passTo(nextOffset)
      if (this.history.nextOffset() >= highWatermark) return
      if (this.history.nextOffset() === from) {
        notes.push(
          `${OFFSETS_TOPIC}-${this.offsetsPartition} gave nothing from offset ${from} (high watermark ` +
            `${highWatermark}): generations continue in the next sample`,
        )
        return
      }
    }
    notes.push(
      `${OFFSETS_TOPIC}-${this.offsetsPartition} not read to its end in this sample: generations continue in the next`,
    )
  }

  /** Counts the control records written since the first sample (the scan starts at that sample's high watermark). */
  private async scanMarkers(
    tp: TopicPartition,
    offsets: PartitionOffsets,
  ): Promise<{ commits: number; aborts: number }> {
    const key = `${tp.topic}-${tp.partition}`
    let scan = this.scans.get(key)
    if (!scan) {
      scan = { position: offsets.highWatermark, commits: 0, aborts: 0 }
      this.scans.set(key, scan)
      return scan
    }
    scan.position = Math.max(scan.position, offsets.logStartOffset)
    if (scan.position >= offsets.highWatermark) return scan
    const records = await this.source.inspector.readRaw(tp, scan.position, offsets.highWatermark, MARKER_SCAN_LIMIT)
    for (const r of records) {
      if (r.control === 'COMMIT') scan.commits++
      else if (r.control === 'ABORT') scan.aborts++
    }
    const last = records[records.length - 1]
    scan.position = last ? last.offset + 1 : offsets.highWatermark
    return scan
  }
}
