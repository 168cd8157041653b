// The independent validator. It reads only the logs, through the LogInspector, never the engine's
// counters, as Kafka's own exactly-once system test does: the input topic up to the group's
// committed offsets, the output, changelog and dead-letter topics as a read_committed consumer
// sees them, and it recomputes the expected results in input offset order. Definitions: the
// "Correctness (the validator)" section of MEASURES.md.
//
// Memory: records are read in pages and never retained. Per input record it keeps ~42 bytes in
// typed arrays (kind, key id, expected aggregate, copies seen), per key one aggregate, per
// producer with an open transaction one counter pair; 1M input records take ~42 MB.
//
// Long runs: the same passes work incrementally, since every structure here only grows with the
// offsets. An incremental validator keeps this state between calls together with a read position
// per partition, feeds the new records of each partition since the last call, and treats as
// final only what lies below the last stable offsets and committed offsets of that moment; it
// must run before retention drops records it has not read yet.

import type { LogInspector, OffsetToCommit, PartitionOffsets, StoredRecordView, TopicPartition } from '../log/types.ts'
import { tpKey } from '../log/types.ts'
import { type Aggregate, DEFAULT_DLQ_TOPIC, type Provenance, decodeOutputValue } from '../../lib/records.ts'
import { AbortedReadAudit, isCommittedRecord } from './read-committed.ts'
import { openTransactionPartitions } from './open-transactions.ts'
import { AggregateRecomputation, differingKeys, inputUpdate } from './recompute.ts'
import { dlqProvenance } from './provenance.ts'
import type { KeyCount, StateMismatchExample, ValidationReport, ValidationRow } from './report.ts'

export { violations, VALIDATION_ROWS } from './report.ts'
export type { Guarantee, PartitionCommit, ValidationReport, ValidationRow, Violation } from './report.ts'

export interface ValidateOptions {
  groupId: string
  inputTopic: string
  outputTopic: string
  changelogTopic: string
  /** Defaults to 'input-dlq'; checked only if the topic exists. */
  dlqTopic?: string
  /** The final state-store contents, if the caller has them. */
  finalState?: ReadonlyMap<string, Aggregate>
  /** Records per readRaw call. */
  pageSize?: number
}

const DEFAULT_PAGE_SIZE = 5_000
const MAX_EXAMPLES = 10

/** Feeds every stored record of a partition in [from, to) to visit, in offset order, a page at a time. */
export async function forEachRecord(
  inspector: LogInspector,
  tp: TopicPartition,
  from: number,
  to: number,
  pageSize: number,
  visit: (r: StoredRecordView) => void,
): Promise<void> {
  let next = from
  while (next < to) {
    const page = await inspector.readRaw(tp, next, to, pageSize)
    if (page.length === 0) break
    for (const r of page) visit(r)
    next = page[page.length - 1]!.offset + 1
  }
}

// What an input offset holds, for the checks of the output against it.
// NOT_INPUT (0): a marker, an aborted or unfinished transactional record, or nothing
const COMMITTED_VALUE = 1
const COMMITTED_POISON = 2
const UNCOMMITTED = 3 // a data record at or past the committed offset

/** One input partition as the checks need it: a few typed arrays indexed by offset − logStartOffset. */
class InputPartitionModel {
  readonly kind: Uint8Array
  readonly keyId: Int32Array
  /** count, sum, min, max of the key right after each committed input record. */
  readonly expected: Float64Array
  readonly outputCopies: Uint32Array
  readonly dlqCopies: Uint32Array
  /** Offsets below this are committed input: the committed offset, clamped to the stored range. */
  readonly committedEnd: number

  constructor(
    readonly partition: number,
    readonly offsets: PartitionOffsets,
    readonly committedOffset: number | null,
  ) {
    const n = offsets.highWatermark - offsets.logStartOffset
    this.kind = new Uint8Array(n)
    this.keyId = new Int32Array(n)
    this.expected = new Float64Array(4 * n)
    this.outputCopies = new Uint32Array(n)
    this.dlqCopies = new Uint32Array(n)
    this.committedEnd = Math.min(Math.max(committedOffset ?? 0, offsets.logStartOffset), offsets.highWatermark)
  }
  /** The array index of an offset, or -1 when it is not stored here. */
  indexOf(offset: number): number {
    const i = offset - this.offsets.logStartOffset
    return Number.isInteger(i) && i >= 0 && i < this.kind.length ? i : -1
  }
  expectedAt(i: number): Aggregate {
    const e = this.expected
    return { count: e[4 * i]!, sum: e[4 * i + 1]!, min: e[4 * i + 2]!, max: e[4 * i + 3]! }
  }
  setExpected(i: number, a: Aggregate): void {
    this.expected.set([a.count, a.sum, a.min, a.max], 4 * i)
  }
}

/** Key ids, and the input partition each key was first seen in (the recomputation assumes keys are partitioned). */
class KeyTable {
  private readonly ids = new Map<string, number>()
  private readonly partitionOf: number[] = []
  /** Keys seen in more than one input partition. */
  readonly split = new Set<string>()
  intern(key: string, partition: number): number {
    let id = this.ids.get(key)
    if (id === undefined) {
      this.ids.set(key, (id = this.ids.size))
      this.partitionOf.push(partition)
    } else if (this.partitionOf[id] !== partition) {
      this.split.add(key)
    }
    return id
  }
  idOf(key: string): number | undefined {
    return this.ids.get(key)
  }
}

function sameAggregate(a: Aggregate, b: Aggregate): boolean {
  return a.count === b.count && a.sum === b.sum && a.min === b.min && a.max === b.max
}

function toAggregate(v: Aggregate): Aggregate {
  return { count: v.count, sum: v.sum, min: v.min, max: v.max }
}

function countsByKey(counts: ReadonlyMap<string, number>): KeyCount[] {
  return [...counts].map(([key, count]) => ({ key, count })).sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1))
}

function committedOffsetsOf(offsets: readonly OffsetToCommit[], topic: string): Map<number, number> {
  return new Map(offsets.filter((o) => o.topic === topic).map((o) => [o.partition, o.offset]))
}

function emptyReport(opts: ValidateOptions, dlqTopic: string | null): ValidationReport {
  return {
    groupId: opts.groupId,
    inputTopic: opts.inputTopic,
    outputTopic: opts.outputTopic,
    changelogTopic: opts.changelogTopic,
    dlqTopic,
    inputRecords: 0,
    poison: 0,
    outputRecords: 0,
    dlqRecords: 0,
    malformed: { output: 0, changelog: 0, dlq: 0 },
    duplicates: 0,
    duplicateKeys: [],
    lost: 0,
    abortedReads: 0,
    abortedReadsUncommitted: 0,
    stateMismatches: 0,
    stateMismatchesBy: { output: 0, changelog: null, finalState: null },
    openTransactions: 0,
    openTransactionPartitions: [],
    orphanOutputs: 0,
    outputsBeyondCommitted: 0,
    committedOffsets: [],
    unavailable: [],
    notes: [],
    examples: { duplicates: [], lost: [], stateMismatches: [] },
  }
}

/** One validation: the passes over the topics, in order input, output, dead letters, changelog. */
class RunValidation {
  readonly report: ValidationReport
  private readonly inputs = new Map<number, InputPartitionModel>()
  private readonly keys = new KeyTable()
  private readonly recomputation = new AggregateRecomputation()
  private readonly duplicateKeys = new Map<string, number>()
  private readonly unavailable = new Map<ValidationRow, string>()
  private duplicates = 0
  private lost = 0
  private readonly pageSize: number

  constructor(
    private readonly inspector: LogInspector,
    private readonly opts: ValidateOptions,
    private readonly topics: ReadonlyMap<string, number>,
    readonly dlqTopic: string | null,
  ) {
    this.report = emptyReport(opts, dlqTopic)
    this.pageSize = opts.pageSize ?? DEFAULT_PAGE_SIZE
  }

  private markUnavailable(row: ValidationRow, reason: string): void {
    if (!this.unavailable.has(row)) this.unavailable.set(row, reason)
  }

  /** Reads one partition from its log start to its high watermark, auditing aborted reads on the way. */
  private async scan(tp: TopicPartition, visit: (offsets: PartitionOffsets) => (r: StoredRecordView) => void): Promise<PartitionOffsets> {
    const offsets = await this.inspector.offsets(tp)
    const audit = new AbortedReadAudit(offsets)
    const onRecord = visit(offsets)
    await forEachRecord(this.inspector, tp, offsets.logStartOffset, offsets.highWatermark, this.pageSize, (r) => {
      audit.add(r)
      onRecord(r)
    })
    const counts = audit.result()
    this.report.abortedReads += counts.abortedReads
    this.report.abortedReadsUncommitted += counts.abortedReadsUncommitted
    return offsets
  }

  private async scanTopic(topic: string, visit: (offsets: PartitionOffsets, partition: number) => (r: StoredRecordView) => void): Promise<PartitionOffsets[]> {
    const out: PartitionOffsets[] = []
    for (let partition = 0; partition < (this.topics.get(topic) ?? 0); partition++) {
      out.push(await this.scan({ topic, partition }, (offsets) => visit(offsets, partition)))
    }
    return out
  }

  async readInput(committed: ReadonlyMap<number, number>): Promise<void> {
    await this.scanTopic(this.opts.inputTopic, (offsets, partition) => {
      const model = new InputPartitionModel(partition, offsets, committed.get(partition) ?? null)
      this.inputs.set(partition, model)
      this.report.committedOffsets.push({ partition, committedOffset: model.committedOffset, logStartOffset: offsets.logStartOffset, highWatermark: offsets.highWatermark })
      if (offsets.logStartOffset > 0 && model.committedEnd > 0) {
        const reason = `${tpKey(this.opts.inputTopic, partition)} starts at offset ${offsets.logStartOffset}: earlier input records are no longer stored`
        this.markUnavailable('lost', reason)
        this.markUnavailable('stateMismatches', reason)
      }
      if (model.committedOffset !== null && model.committedOffset > offsets.highWatermark) {
        this.report.notes.push(`${tpKey(this.opts.inputTopic, partition)}: committed offset ${model.committedOffset} is past the high watermark ${offsets.highWatermark}`)
      }
      return (r) => this.addInputRecord(model, r)
    })
  }

  /** Call after readInput. */
  noteSplitKeys(): void {
    const split = [...this.keys.split].sort()
    if (split.length === 0) return
    const shown = split.slice(0, MAX_EXAMPLES).join(', ')
    this.report.notes.push(`${split.length} key(s) occur in more than one input partition (${shown}): the recomputation applies them in partition order, which may differ from the engine's`)
  }

  private addInputRecord(model: InputPartitionModel, r: StoredRecordView): void {
    const i = model.indexOf(r.offset)
    if (i < 0 || !isCommittedRecord(r)) return
    const update = inputUpdate(r)
    if (r.offset >= model.committedEnd) {
      model.kind[i] = UNCOMMITTED
      return
    }
    this.report.inputRecords++
    if (!update) {
      model.kind[i] = COMMITTED_POISON
      this.report.poison++
      return
    }
    model.kind[i] = COMMITTED_VALUE
    model.keyId[i] = this.keys.intern(update.key, model.partition)
    model.setExpected(i, this.recomputation.apply(update.key, update.value))
  }

  async readOutput(): Promise<void> {
    await this.scanTopic(this.opts.outputTopic, (offsets, partition) => {
      if (offsets.logStartOffset > 0) {
        const reason = `${tpKey(this.opts.outputTopic, partition)} starts at offset ${offsets.logStartOffset}: earlier output records are no longer stored`
        for (const row of ['duplicates', 'lost', 'stateMismatches'] as const) this.markUnavailable(row, reason)
      }
      return (r) => {
        if (isCommittedRecord(r)) this.addOutputRecord(r)
      }
    })
    this.report.duplicateKeys = countsByKey(this.duplicateKeys)
  }

  private addOutputRecord(r: StoredRecordView): void {
    this.report.outputRecords++
    const v = decodeOutputValue(r.value)
    if (!v) {
      this.report.malformed.output++
      return
    }
    const model = this.inputs.get(v.source.partition)
    const i = model ? model.indexOf(v.source.offset) : -1
    if (!model || i < 0) {
      if (model && v.source.offset < model.offsets.logStartOffset) {
        this.markUnavailable('duplicates', `output records name input offsets below the input's log start offset`)
      } else {
        this.report.orphanOutputs++
      }
      return
    }
    const copies = ++model.outputCopies[i]!
    if (copies > 1) {
      this.addDuplicate(v.key, v.source, copies)
      return
    }
    const kind = model.kind[i]
    if (kind === UNCOMMITTED) this.report.outputsBeyondCommitted++
    else if (kind !== COMMITTED_VALUE) this.report.orphanOutputs++
    else this.checkOutputValue(model, i, v.key, v.source, toAggregate(v))
  }

  private addDuplicate(key: string, source: Provenance, copies: number): void {
    this.duplicates++
    this.duplicateKeys.set(key, (this.duplicateKeys.get(key) ?? 0) + 1)
    const examples = this.report.examples.duplicates
    const seen = examples.find((e) => e.partition === source.partition && e.offset === source.offset)
    if (seen) seen.copies = copies
    else if (examples.length < MAX_EXAMPLES) examples.push({ partition: source.partition, offset: source.offset, key, copies })
  }

  /** The first copy of each provenance against the recomputed aggregate right after its input record. */
  private checkOutputValue(model: InputPartitionModel, i: number, key: string, source: Provenance, actual: Aggregate): void {
    const expected = model.expectedAt(i)
    if (this.keys.idOf(key) === model.keyId[i] && sameAggregate(expected, actual)) return
    this.report.stateMismatchesBy.output++
    this.addMismatchExample({ key, source, expected, actual, where: 'output' })
  }

  private addMismatchExample(e: StateMismatchExample): void {
    if (this.report.examples.stateMismatches.length < MAX_EXAMPLES) this.report.examples.stateMismatches.push(e)
  }

  async readDlq(): Promise<void> {
    if (this.dlqTopic === null) return
    await this.scanTopic(this.dlqTopic, (offsets, partition) => {
      if (offsets.logStartOffset > 0) this.markUnavailable('lost', `${tpKey(this.dlqTopic!, partition)} starts at offset ${offsets.logStartOffset}: earlier dead letters are no longer stored`)
      return (r) => {
        if (!isCommittedRecord(r)) return
        this.report.dlqRecords++
        const source = dlqProvenance(r, this.opts.inputTopic)
        const model = source ? this.inputs.get(source.partition) : undefined
        const i = model ? model.indexOf(source!.offset) : -1
        if (i < 0) this.report.malformed.dlq++
        else model!.dlqCopies[i]!++
      }
    })
  }

  /** The latest committed changelog value per key against the final recomputation. */
  async readChangelog(): Promise<void> {
    const topic = this.opts.changelogTopic
    if (!this.topics.has(topic)) {
      this.report.notes.push(`no changelog topic ${topic}: final state not checked against it`)
      return
    }
    const latest = new Map<string, Aggregate>()
    await this.scanTopic(topic, (offsets, partition) => {
      if (offsets.logStartOffset > 0) this.markUnavailable('stateMismatches', `${tpKey(topic, partition)} starts at offset ${offsets.logStartOffset}: a key's latest value may no longer be stored`)
      return (r) => {
        if (!isCommittedRecord(r)) return
        if (r.value === null) {
          if (r.key !== null) latest.delete(r.key)
          return
        }
        const v = decodeOutputValue(r.value)
        if (v) latest.set(r.key ?? v.key, toAggregate(v))
        else this.report.malformed.changelog++
      }
    })
    this.report.stateMismatchesBy.changelog = this.compareFinal(latest, 'changelog')
  }

  compareFinalState(): void {
    if (this.opts.finalState) this.report.stateMismatchesBy.finalState = this.compareFinal(this.opts.finalState, 'finalState')
  }

  private compareFinal(actual: ReadonlyMap<string, Aggregate>, where: 'changelog' | 'finalState'): number {
    const expected = this.recomputation.final()
    const keys = differingKeys(expected, actual)
    for (const key of keys) this.addMismatchExample({ key, source: null, expected: expected.get(key) ?? null, actual: actual.get(key) ?? null, where })
    return keys.length
  }

  /** Committed input records with no committed output record (or, for poison with a DLQ topic, no dead letter either). */
  countLost(): void {
    for (const model of this.inputs.values()) {
      const end = model.committedEnd - model.offsets.logStartOffset
      for (let i = 0; i < end; i++) {
        const kind = model.kind[i]
        if (model.outputCopies[i]! > 0) continue
        const lost = kind === COMMITTED_VALUE || (kind === COMMITTED_POISON && this.dlqTopic !== null && model.dlqCopies[i] === 0)
        if (!lost) continue
        this.lost++
        if (this.report.examples.lost.length < MAX_EXAMPLES) this.report.examples.lost.push({ partition: model.partition, offset: model.offsets.logStartOffset + i })
      }
    }
  }

  /** Partitions with a transaction still open (see open-transactions.ts for which topics count). */
  async findOpenTransactions(): Promise<void> {
    this.report.openTransactionPartitions = await openTransactionPartitions(this.inspector, this.topics, this.opts, this.dlqTopic)
    this.report.openTransactions = this.report.openTransactionPartitions.length
  }

  finish(): ValidationReport {
    const r = this.report
    const by = r.stateMismatchesBy
    r.duplicates = this.duplicates
    r.lost = this.lost
    r.stateMismatches = by.output + (by.changelog ?? 0) + (by.finalState ?? 0)
    for (const [row, reason] of this.unavailable) {
      if (row === 'duplicates' || row === 'lost' || row === 'stateMismatches') r[row] = null
      r.unavailable.push({ row, reason })
    }
    return r
  }
}

/** Validates a finished run from its logs alone. */
export async function validateRun(inspector: LogInspector, opts: ValidateOptions): Promise<ValidationReport> {
  const topics = new Map((await inspector.topics()).map((t) => [t.topic, t.partitions]))
  for (const topic of [opts.inputTopic, opts.outputTopic]) {
    if (!topics.has(topic)) throw new Error(`cannot validate: topic ${topic} does not exist`)
  }
  const dlqName = opts.dlqTopic ?? DEFAULT_DLQ_TOPIC
  const run = new RunValidation(inspector, opts, topics, topics.has(dlqName) ? dlqName : null)
  await run.readInput(committedOffsetsOf(await inspector.committedOffsets(opts.groupId), opts.inputTopic))
  run.noteSplitKeys()
  await run.readOutput()
  await run.readDlq()
  await run.readChangelog()
  run.compareFinalState()
  run.countLost()
  await run.findOpenTransactions()
  return run.finish()
}

