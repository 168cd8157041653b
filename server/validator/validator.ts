// The independent validator. It reads only the logs, through the LogInspector, never the engine's
// counters, as Kafka's own exactly-once system test does: the input topic up to the group's
// committed offsets, the output, changelog and dead-letter topics as a read_committed consumer
// sees them, and it recomputes the expected results in input offset order. Definitions: the
// "Correctness (the validator)" section of docs/measures.md.
//
// Memory: records are read in pages and never retained. Per input record it keeps ~42 bytes in
// typed arrays (kind, key id, expected aggregate, copies seen), per key one aggregate, per
// producer with an open transaction one counter pair; 1M input records take ~42 MB.
//
// Long runs: incremental-validator.ts runs the same passes incrementally, since every structure
// here only grows with the offsets: it keeps this state between checks with a read position per
// partition, and treats as final only what lies below the last stable offsets and committed
// offsets of that moment. Both count into the same tally and build the report in one place
// (tally.ts), over the same input encodings and key table (input-model.ts).

import type { LogInspector, OffsetToCommit, PartitionOffsets, StoredRecordView, TopicPartition } from '../log/types.ts'
import { tpKey } from '../log/types.ts'
import { type Aggregate, DEFAULT_DLQ_TOPIC, type Provenance, decodeOutputValue } from '../../lib/records.ts'
import { type AbortedReadCounts, AbortedReadAudit, isCommittedRecord } from './read-committed.ts'
import { openTransactionPartitions } from './open-transactions.ts'
import { AggregateRecomputation, differingKeys, inputUpdate } from './recompute.ts'
import { dlqProvenance } from './provenance.ts'
import type { StateMismatchExample, ValidationReport } from './report.ts'
import { DEFAULT_PAGE_SIZE, forEachRecord } from './log-pages.ts'
import { InputPartitionModel, KeyTable, POISON, UNCOMMITTED, VALUE } from './input-model.ts'
import {
  MAX_EXAMPLES,
  OUTPUT_ROWS,
  UnavailableRows,
  type ValidationEnd,
  assembleReport,
  countDuplicate,
  finalMismatches,
  newTally,
  splitKeysNote,
  toAggregate,
} from './tally.ts'

export { violations, VALIDATION_ROWS } from './report.ts'
export type { Guarantee, PartitionCommit, ValidationReport, ValidationRow, Violation } from './report.ts'

export interface ValidateOptions {
  groupId: string
  inputTopic: string
  outputTopic: string
  changelogTopic: string
  /** Defaults to 'input-dlq'; checked only if the topic exists; null: the application has none. */
  dlqTopic?: string | null
  /** The final state-store contents, if the caller has them. */
  finalState?: ReadonlyMap<string, Aggregate>
  /** Records per readRaw call. */
  pageSize?: number
}

function committedOffsetsOf(offsets: readonly OffsetToCommit[], topic: string): Map<number, number> {
  return new Map(offsets.filter((o) => o.topic === topic).map((o) => [o.partition, o.offset]))
}

/** One validation: the passes over the topics, in order input, output, dead letters, changelog. */
class RunValidation {
  private readonly inputs = new Map<number, InputPartitionModel>()
  private readonly keys = new KeyTable()
  private readonly recomputation = new AggregateRecomputation()
  private readonly tally = newTally()
  private readonly unavailable = new UnavailableRows()
  private readonly end: ValidationEnd
  private readonly pageSize: number

  constructor(
    private readonly inspector: LogInspector,
    private readonly opts: ValidateOptions,
    private readonly topics: ReadonlyMap<string, number>,
    readonly dlqTopic: string | null,
  ) {
    this.pageSize = opts.pageSize ?? DEFAULT_PAGE_SIZE
    this.end = {
      dlqTopic,
      abortedReads: { abortedReads: 0, abortedReadsUncommitted: 0 },
      pendingOrphans: 0,
      outputsBeyondCommitted: 0,
      changelogMismatches: null,
      finalStateMismatches: null,
      finalMismatchKeys: new Set(),
      openTransactionPartitions: [],
      committedOffsets: [],
      notes: [],
      examples: { duplicates: [], lost: [], stateMismatches: [] },
    }
  }

  /** Reads one partition from its log start to its high watermark, auditing aborted reads on the way. */
  private async scan(
    tp: TopicPartition,
    visit: (offsets: PartitionOffsets) => (r: StoredRecordView) => void,
  ): Promise<PartitionOffsets> {
    const offsets = await this.inspector.offsets(tp)
    const audit = new AbortedReadAudit(offsets)
    const onRecord = visit(offsets)
    await forEachRecord(this.inspector, tp, offsets.logStartOffset, offsets.highWatermark, this.pageSize, (r) => {
      audit.add(r)
      onRecord(r)
    })
    const counts: AbortedReadCounts = audit.result()
    this.end.abortedReads.abortedReads += counts.abortedReads
    this.end.abortedReads.abortedReadsUncommitted += counts.abortedReadsUncommitted
    return offsets
  }

  private async scanTopic(
    topic: string,
    visit: (offsets: PartitionOffsets, partition: number) => (r: StoredRecordView) => void,
  ): Promise<PartitionOffsets[]> {
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
      this.end.committedOffsets.push({
        partition,
        committedOffset: model.committedOffset,
        logStartOffset: offsets.logStartOffset,
        highWatermark: offsets.highWatermark,
      })
      if (offsets.logStartOffset > 0 && model.committedEnd > 0) {
        this.unavailable.mark(
          ['lost', 'stateMismatches'],
          `${tpKey(this.opts.inputTopic, partition)} starts at offset ${offsets.logStartOffset}: earlier input ` +
            `records are no longer stored`,
        )
      }
      if (model.committedOffset !== null && model.committedOffset > offsets.highWatermark) {
        this.end.notes.push(
          `${tpKey(this.opts.inputTopic, partition)}: committed offset ${model.committedOffset} is past the ` +
            `high watermark ${offsets.highWatermark}`,
        )
      }
      return (r) => this.addInputRecord(model, r)
    })
  }

  /** Call after readInput. */
  noteSplitKeys(): void {
    const note = splitKeysNote(this.keys.split, 'in partition order')
    if (note) this.end.notes.push(note)
  }

  private addInputRecord(model: InputPartitionModel, r: StoredRecordView): void {
    const i = model.indexOf(r.offset)
    if (i < 0 || !isCommittedRecord(r)) return
    const update = inputUpdate(r)
    if (r.offset >= model.committedEnd) {
      model.kind[i] = UNCOMMITTED
      return
    }
    this.tally.inputRecords++
    if (!update) {
      model.kind[i] = POISON
      this.tally.poison++
      return
    }
    model.kind[i] = VALUE
    model.keyId[i] = this.keys.intern(update.key, model.partition)
    model.setExpected(i, this.recomputation.apply(update.key, update.value))
  }

  async readOutput(): Promise<void> {
    await this.scanTopic(this.opts.outputTopic, (offsets, partition) => {
      if (offsets.logStartOffset > 0) {
        this.unavailable.mark(
          OUTPUT_ROWS,
          `${tpKey(this.opts.outputTopic, partition)} starts at offset ${offsets.logStartOffset}: earlier ` +
            `output records are no longer stored`,
        )
      }
      return (r) => {
        if (isCommittedRecord(r)) this.addOutputRecord(r)
      }
    })
  }

  private addOutputRecord(r: StoredRecordView): void {
    this.tally.outputRecords++
    const v = decodeOutputValue(r.value)
    if (!v) {
      this.tally.malformed.output++
      return
    }
    const model = this.inputs.get(v.source.partition)
    const i = model ? model.indexOf(v.source.offset) : -1
    if (!model || i < 0) {
      if (model && v.source.offset < model.offsets.logStartOffset) {
        this.unavailable.mark(['duplicates'], `output records name input offsets below the input's log start offset`)
      } else {
        this.tally.orphanOutputs++
      }
      return
    }
    const copies = ++model.outputCopies[i]!
    if (copies > 1) {
      this.addDuplicate(v.key, v.source, copies)
      return
    }
    const kind = model.kind[i]
    if (kind === UNCOMMITTED) this.end.outputsBeyondCommitted++
    else if (kind !== VALUE) this.tally.orphanOutputs++
    else this.checkOutputValue(model, i, v.key, v.source, toAggregate(v))
  }

  private addDuplicate(key: string, source: Provenance, copies: number): void {
    countDuplicate(this.tally, key)
    const examples = this.end.examples.duplicates
    const seen = examples.find((e) => e.partition === source.partition && e.offset === source.offset)
    if (seen) seen.copies = copies
    else if (examples.length < MAX_EXAMPLES)
      examples.push({ partition: source.partition, offset: source.offset, key, copies })
  }

  /** The first copy of each provenance against the recomputed aggregate right after its input record. */
  private checkOutputValue(
    model: InputPartitionModel,
    i: number,
    key: string,
    source: Provenance,
    actual: Aggregate,
  ): void {
    const expected = model.expectedAt(i)
    if (
      this.tally.drift.noteOutput(
        key,
        this.keys.idOf(key) === model.keyId[i] ? 'input-key' : 'other-key',
        expected,
        actual,
      )
    )
      this.addMismatchExample({ key, source, expected, actual, where: 'output' })
  }

  private addMismatchExample(e: StateMismatchExample): void {
    const examples = this.end.examples.stateMismatches
    if (examples.length < MAX_EXAMPLES) examples.push(e)
  }

  async readDlq(): Promise<void> {
    const dlqTopic = this.dlqTopic
    if (dlqTopic === null) return
    await this.scanTopic(dlqTopic, (offsets, partition) => {
      if (offsets.logStartOffset > 0)
        this.unavailable.mark(
          ['lost'],
          `${tpKey(dlqTopic, partition)} starts at offset ${offsets.logStartOffset}: earlier dead letters are ` +
            `no longer stored`,
        )
      return (r) => {
        if (!isCommittedRecord(r)) return
        this.tally.dlqRecords++
        const source = dlqProvenance(r, this.opts.inputTopic)
        const model = source ? this.inputs.get(source.partition) : undefined
        const i = model ? model.indexOf(source!.offset) : -1
        if (i < 0) this.tally.malformed.dlq++
        else model!.dlqCopies[i]!++
      }
    })
  }

  /** The latest committed changelog value per key against the final recomputation. */
  async readChangelog(): Promise<void> {
    const topic = this.opts.changelogTopic
    if (!this.topics.has(topic)) {
      this.end.notes.push(`no changelog topic ${topic}: final state not checked against it`)
      return
    }
    const latest = new Map<string, Aggregate>()
    await this.scanTopic(topic, (offsets, partition) => {
      if (offsets.logStartOffset > 0)
        this.unavailable.mark(
          ['stateMismatches'],
          `${tpKey(topic, partition)} starts at offset ${offsets.logStartOffset}: a key's latest value may no ` +
            `longer be stored`,
        )
      return (r) => {
        if (!isCommittedRecord(r)) return
        if (r.value === null) {
          if (r.key !== null) latest.delete(r.key)
          return
        }
        const v = decodeOutputValue(r.value)
        if (v) latest.set(r.key ?? v.key, toAggregate(v))
        else this.tally.malformed.changelog++
      }
    })
    this.end.changelogMismatches = this.compareFinal(latest, 'changelog')
  }

  compareFinalState(): void {
    if (this.opts.finalState) this.end.finalStateMismatches = this.compareFinal(this.opts.finalState, 'finalState')
  }

  private compareFinal(actual: ReadonlyMap<string, Aggregate>, where: 'changelog' | 'finalState'): number {
    const expected = this.recomputation.final()
    return finalMismatches(
      differingKeys(expected, actual),
      expected,
      (key) => actual.get(key),
      where,
      this.end.examples.stateMismatches,
      this.end.finalMismatchKeys,
    )
  }

  /**
   * Committed input records with no committed output record (or, for poison with a DLQ topic, no dead letter either).
   */
  countLost(): void {
    for (const model of this.inputs.values()) {
      const end = model.committedEnd - model.offsets.logStartOffset
      for (let i = 0; i < end; i++) {
        const kind = model.kind[i]
        if (model.outputCopies[i]! > 0) continue
        const lost = kind === VALUE || (kind === POISON && this.dlqTopic !== null && model.dlqCopies[i] === 0)
        if (!lost) continue
        this.tally.lost++
        const examples = this.end.examples.lost
        if (examples.length < MAX_EXAMPLES)
          examples.push({ partition: model.partition, offset: model.offsets.logStartOffset + i })
      }
    }
  }

  /** Partitions with a transaction still open (see open-transactions.ts for which topics count). */
  async findOpenTransactions(): Promise<void> {
    this.end.openTransactionPartitions = await openTransactionPartitions(
      this.inspector,
      this.topics,
      this.opts,
      this.dlqTopic,
    )
  }

  finish(): ValidationReport {
    return assembleReport(this.opts, this.tally, this.end, this.unavailable)
  }
}

/** Validates a finished run from its logs alone. */
export async function validateRun(inspector: LogInspector, opts: ValidateOptions): Promise<ValidationReport> {
  const topics = new Map((await inspector.topics()).map((t) => [t.topic, t.partitions]))
  for (const topic of [opts.inputTopic, opts.outputTopic]) {
    if (!topics.has(topic)) throw new Error(`cannot validate: topic ${topic} does not exist`)
  }
  const dlqName = opts.dlqTopic === undefined ? DEFAULT_DLQ_TOPIC : opts.dlqTopic
  const run = new RunValidation(inspector, opts, topics, dlqName !== null && topics.has(dlqName) ? dlqName : null)
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
