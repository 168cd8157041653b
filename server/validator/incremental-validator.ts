// The validator for long live runs: the same rows as validateRun (MEASURES.md, "Correctness"),
// computed from what is new in the logs since the previous check, in pages, with bounded state.
//
// A check, in this order:
//   1. the group's committed input offsets C;
//   2. offsets of every output, dead-letter and changelog partition: their high watermarks, read
//      after C, are past every record written before C was committed (outputs are written before
//      their offsets commit under at_least_once, with them under exactly_once);
//   3. the input from each partition's read position up to C (and its last stable offset),
//      recomputing each key's aggregate;
//   4. the output, dead-letter and changelog partitions from their read positions up to their last
//      stable offsets: records there are final, committed or aborted; pending ones wait for a later
//      check. Every record read goes through the aborted-read audit (read-committed.ts).
//   5. decisions: once every one of those partitions has been read up to the high watermark of
//      step 2, each input offset below C is final: its output (or dead letter) has been seen, or
//      it is lost. While a transaction holds a last stable offset back, the decisions for the
//      committed offsets of that check wait for a later one.
//
// Memory per input partition: the undecided input records (offsets from the decision watermark to
// the read position: a check's worth of records, or what an open transaction holds back), the
// outputs and dead letters seen ahead of their input, and the decided offsets that had no output
// (lost, poison, not an input record), capped (maxExceptionsPerPartition). Per key one aggregate
// and its latest changelog value. Per producer with an open transaction one counter pair. Nothing
// per record once decided: an output naming a decided offset that is not an exception is a
// duplicate.
//
// Differences from validateRun, by design:
//   - Records past a last stable offset are read at a later check, so while a transaction is open
//     lost and the changelog comparison may lag one check behind; nothing is decided early.
//   - Changelog keys are compared only once the key's latest committed input is decided and the
//     changelog is not ahead of it (validateRun compares whatever it finds, so it shows transient
//     mismatches while outputs run ahead of the offset commit).
//   - Retention: rows become unavailable only if records were deleted before this validator read
//     them (validateRun: as soon as any record is gone). keepFrom() tells the log what to keep.
//   - The input is read and audited up to the committed offsets only.
//   - Split keys (a key in several input partitions) are applied in the order the checks read
//     them, validateRun applies them partition after partition.
//   - Outputs ahead of their input that name a non-committed input record (a marker, an aborted
//     record) count as beyond committed until that input is read, then as orphans.

import type { LogInspector, PartitionOffsets, StoredRecordView, TopicPartition } from '../log/types.ts'
import { tpKey } from '../log/types.ts'
import { type Aggregate, DEFAULT_DLQ_TOPIC, applyToAggregate, decodeOutputValue } from '../../lib/records.ts'
import { AbortedReadAudit, isCommittedRecord } from './read-committed.ts'
import { differingKeys, inputUpdate } from './recompute.ts'
import { dlqProvenance } from './provenance.ts'
import type { KeyCount, StateMismatchExample, ValidationReport, ValidationRow } from './report.ts'
import { type ValidateOptions, forEachRecord } from './validator.ts'
import { openTransactionPartitions } from './open-transactions.ts'

export interface IncrementalValidateOptions extends ValidateOptions {
  /** Decided input offsets without an output kept per partition (lost, poison, non-input); default 20 000. */
  maxExceptionsPerPartition?: number
  /** Checks whose decisions wait for open transactions; default 32 (older waiting ones merge into newer). */
  maxPendingBoundaries?: number
  /** Distinct keys kept for duplicateKeys; default 10 000. */
  maxDuplicateKeys?: number
}

/** Sizes of the state kept between checks: what must stay small. */
export interface IncrementalStats {
  /** Input records read but not decided yet, all partitions. */
  undecidedInputs: number
  /** Outputs seen ahead of (or not yet matched with) a decision, all partitions. */
  outputsAhead: number
  dlqAhead: number
  /** Decided offsets kept because they had no output. */
  exceptions: number
  keys: number
  changelogKeys: number
  pendingBoundaries: number
  /** Records read by readRaw over the validator's life. */
  recordsRead: number
}

const DEFAULT_PAGE_SIZE = 5_000
const MAX_EXAMPLES = 10
const MAX_NOTES = 50

// What an input offset holds.
const NOT_INPUT = 0
const VALUE = 1
const POISON = 2

const OUTPUT_ROWS = ['duplicates', 'lost', 'stateMismatches'] as const

/** Undecided input records [base, base + length), in growable typed arrays. */
class InputWindow {
  base = 0
  length = 0
  private head = 0
  private kind = new Uint8Array(1024)
  private keyId = new Int32Array(1024)
  private expected = new Float64Array(4 * 1024)

  reset(base: number): void {
    this.base = base
    this.length = 0
    this.head = 0
  }
  get end(): number {
    return this.base + this.length
  }
  private ensure(): void {
    const cap = this.kind.length
    if (this.head + this.length < cap) return
    if (this.head > 0 && this.length < cap / 2) {
      this.kind.copyWithin(0, this.head, this.head + this.length)
      this.keyId.copyWithin(0, this.head, this.head + this.length)
      this.expected.copyWithin(0, 4 * this.head, 4 * (this.head + this.length))
      this.head = 0
      return
    }
    const grow = <T extends Uint8Array | Int32Array | Float64Array>(a: T, n: number, per: number): T => {
      const b = new (a.constructor as new (n: number) => T)(n * per)
      b.set(a.subarray(per * this.head, per * (this.head + this.length)))
      return b
    }
    const n = cap * 2
    this.kind = grow(this.kind, n, 1)
    this.keyId = grow(this.keyId, n, 1)
    this.expected = grow(this.expected, n, 4)
    this.head = 0
  }
  push(kind: number, keyId: number, agg: Aggregate | null): void {
    this.ensure()
    const i = this.head + this.length++
    this.kind[i] = kind
    this.keyId[i] = keyId
    if (agg) this.expected.set([agg.count, agg.sum, agg.min, agg.max], 4 * i)
  }
  /** Index for an offset inside the window, or -1. */
  indexOf(offset: number): number {
    const j = offset - this.base
    return j >= 0 && j < this.length ? this.head + j : -1
  }
  kindAt(i: number): number {
    return this.kind[i]!
  }
  keyIdAt(i: number): number {
    return this.keyId[i]!
  }
  expectedAt(i: number): Aggregate {
    const e = this.expected
    return { count: e[4 * i]!, sum: e[4 * i + 1]!, min: e[4 * i + 2]!, max: e[4 * i + 3]! }
  }
  shift(): void {
    this.head++
    this.length--
    this.base++
    if (this.length === 0) this.head = 0
  }
}

/** Where an output record is: examples are kept in the order validateRun's scan meets them. */
interface OutputPosition {
  partition: number
  offset: number
}

function before(a: OutputPosition, b: OutputPosition): boolean {
  return a.partition < b.partition || (a.partition === b.partition && a.offset < b.offset)
}

/** The MAX_EXAMPLES items met first in (output partition, offset) order, whatever order they come in. */
class FirstExamples<T> {
  readonly items: { at: OutputPosition; item: T }[] = []
  add(at: OutputPosition, item: T): void {
    const xs = this.items
    if (xs.length >= MAX_EXAMPLES && !before(at, xs[xs.length - 1]!.at)) return
    let i = xs.length
    while (i > 0 && before(at, xs[i - 1]!.at)) i--
    xs.splice(i, 0, { at, item })
    if (xs.length > MAX_EXAMPLES) xs.pop()
  }
  find(match: (item: T) => boolean): T | undefined {
    return this.items.find((x) => match(x.item))?.item
  }
  list(): T[] {
    return this.items.map((x) => x.item)
  }
}

interface OutputSeen {
  copies: number
  /** The first copy, until it has been compared with its input record. */
  first: { key: string; agg: Aggregate; at: OutputPosition } | null
}

type Exception = { kind: 'lost-value'; keyId: number; expected: Aggregate } | { kind: 'lost-poison' } | { kind: 'poison' } | { kind: 'not-input' }

class InputPartitionState {
  /** The first offset this validator read; null before the first read. */
  readFrom: number | null = null
  /** Input read position: records below it are recomputed. */
  next = 0
  /** Decision watermark: every offset below it is decided. */
  readonly window = new InputWindow()
  readonly outputs = new Map<number, OutputSeen>()
  readonly dlq = new Map<number, number>()
  /** Decided offsets that had no output, in offset order. */
  readonly exceptions = new Map<number, Exception>()
  /** Exceptions below this offset were dropped to bound memory. */
  forgottenBelow = 0
  forgotLost = false
  /** Highest committed offset seen. */
  committed: number | null = null
  offsets: PartitionOffsets = { logStartOffset: 0, lastStableOffset: 0, highWatermark: 0 }
  lastCommitted: number | null = null

  constructor(readonly partition: number) {}

  get decided(): number {
    return this.window.base
  }
}

interface KeyState {
  id: number
  /** The partition the key was first seen in. */
  partition: number
  agg: Aggregate
  /** Where the key's latest committed input record is. */
  lastPartition: number
  lastOffset: number
}

interface ChangelogValue {
  agg: Aggregate
  partition: number
  offset: number
}

interface Boundary {
  committed: Map<number, number>
  /** tpKey → high watermark the partition must be read up to. */
  targets: Map<string, number>
}

interface ReadPosition {
  next: number
  audit: AbortedReadAudit
}

const UNBOUNDED = { lastStableOffset: Number.POSITIVE_INFINITY, highWatermark: Number.POSITIVE_INFINITY }

function sameAggregate(a: Aggregate, b: Aggregate): boolean {
  return a.count === b.count && a.sum === b.sum && a.min === b.min && a.max === b.max
}

function toAggregate(v: Aggregate): Aggregate {
  return { count: v.count, sum: v.sum, min: v.min, max: v.max }
}

/**
 * Validates a live run from its logs, reading only what is new since the previous check.
 * check() returns the same report as validateRun; see the header for where they differ.
 */
export class IncrementalValidator {
  private readonly pageSize: number
  private readonly maxExceptions: number
  private readonly maxBoundaries: number
  private readonly maxDuplicateKeys: number
  private readonly dlqName: string

  private readonly inputs = new Map<number, InputPartitionState>()
  /** Read positions and audits of the output, dead-letter and changelog partitions. */
  private readonly positions = new Map<string, ReadPosition>()
  private inputAudits = new Map<number, AbortedReadAudit>()
  private readonly keys = new Map<string, KeyState>()
  private readonly keyNames: string[] = []
  private readonly splitKeys = new Set<string>()
  private readonly changelog = new Map<string, ChangelogValue>()
  private readonly boundaries: Boundary[] = []
  private readonly unavailable = new Map<ValidationRow, string>()
  private readonly stickyNotes: string[] = []

  private inputRecords = 0
  private poison = 0
  private outputRecords = 0
  private dlqRecords = 0
  private readonly malformed = { output: 0, changelog: 0, dlq: 0 }
  private duplicates = 0
  private readonly duplicateKeys = new Map<string, number>()
  private duplicateKeysTruncated = false
  private lost = 0
  private orphanOutputs = 0
  private outputMismatches = 0
  private readonly duplicateExamples = new FirstExamples<ValidationReport['examples']['duplicates'][number]>()
  private readonly mismatchExamples = new FirstExamples<StateMismatchExample>()
  private recordsRead = 0
  private hadDlqTopic = false
  private queue: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly inspector: LogInspector,
    private readonly opts: IncrementalValidateOptions,
  ) {
    this.pageSize = opts.pageSize ?? DEFAULT_PAGE_SIZE
    this.maxExceptions = opts.maxExceptionsPerPartition ?? 20_000
    this.maxBoundaries = Math.max(1, opts.maxPendingBoundaries ?? 32)
    this.maxDuplicateKeys = opts.maxDuplicateKeys ?? 10_000
    this.dlqName = opts.dlqTopic ?? DEFAULT_DLQ_TOPIC
  }

  /** Reads what is new and returns the report as of now. Calls are serialized. */
  check(): Promise<ValidationReport> {
    const run = this.queue.then(() => this.runCheck())
    this.queue = run.catch(() => undefined)
    return run
  }

  /** The offset from which this validator still needs a partition's records: retention must keep them. */
  keepFrom(tp: TopicPartition): number {
    if (tp.topic === this.opts.inputTopic) return this.inputs.get(tp.partition)?.next ?? 0
    const pos = this.positions.get(tpKey(tp.topic, tp.partition))
    if (pos) return pos.next
    const watched = [this.opts.outputTopic, this.dlqName, this.opts.changelogTopic]
    return watched.includes(tp.topic) ? 0 : Number.POSITIVE_INFINITY
  }

  stats(): IncrementalStats {
    let undecidedInputs = 0
    let outputsAhead = 0
    let dlqAhead = 0
    let exceptions = 0
    for (const s of this.inputs.values()) {
      undecidedInputs += s.window.length
      outputsAhead += s.outputs.size
      dlqAhead += s.dlq.size
      exceptions += s.exceptions.size
    }
    return { undecidedInputs, outputsAhead, dlqAhead, exceptions, keys: this.keys.size, changelogKeys: this.changelog.size, pendingBoundaries: this.boundaries.length, recordsRead: this.recordsRead }
  }

  // ---- one check -----------------------------------------------------------------------------

  private async runCheck(): Promise<ValidationReport> {
    const o = this.opts
    const topics = new Map((await this.inspector.topics()).map((t) => [t.topic, t.partitions]))
    for (const topic of [o.inputTopic, o.outputTopic]) {
      if (!topics.has(topic)) throw new Error(`cannot validate: topic ${topic} does not exist`)
    }
    const dlqTopic = topics.has(this.dlqName) ? this.dlqName : null
    if (dlqTopic !== null && !this.hadDlqTopic && this.inputs.size > 0 && [...this.inputs.values()].some((s) => s.decided > 0)) {
      this.note(`dead-letter topic ${dlqTopic} appeared during the run: poison records decided before it were not checked against it`)
    }
    this.hadDlqTopic = dlqTopic !== null
    const hasChangelog = topics.has(o.changelogTopic)

    // 1. Committed offsets first.
    const committed = new Map<number, number>()
    for (const c of await this.inspector.committedOffsets(o.groupId)) if (c.topic === o.inputTopic) committed.set(c.partition, c.offset)

    // 2. Where every partition an output may land in stands now.
    const watched: TopicPartition[] = []
    for (const topic of [o.outputTopic, dlqTopic, hasChangelog ? o.changelogTopic : null]) {
      if (topic === null) continue
      for (let partition = 0; partition < topics.get(topic)!; partition++) watched.push({ topic, partition })
    }
    const watchedOffsets = new Map<string, PartitionOffsets>()
    for (const tp of watched) watchedOffsets.set(tpKey(tp.topic, tp.partition), await this.inspector.offsets(tp))
    const boundary: Boundary = { committed: new Map(), targets: new Map() }
    for (const [k, off] of watchedOffsets) boundary.targets.set(k, off.highWatermark)

    // 3. Input up to the committed offsets.
    const checkNotes: string[] = []
    const committedOffsets: ValidationReport['committedOffsets'] = []
    for (let partition = 0; partition < topics.get(o.inputTopic)!; partition++) {
      const s = this.inputState(partition)
      const c = committed.get(partition) ?? null
      s.offsets = await this.inspector.offsets({ topic: o.inputTopic, partition })
      committedOffsets.push({ partition, committedOffset: c, logStartOffset: s.offsets.logStartOffset, highWatermark: s.offsets.highWatermark })
      if (c !== null && s.lastCommitted !== null && c < s.lastCommitted) {
        this.note(`${tpKey(o.inputTopic, partition)}: the committed offset went back from ${s.lastCommitted} to ${c}; offsets below ${s.lastCommitted} stay decided`)
      }
      if (c !== null) s.lastCommitted = c
      if (c !== null && c > s.offsets.highWatermark) checkNotes.push(`${tpKey(o.inputTopic, partition)}: committed offset ${c} is past the high watermark ${s.offsets.highWatermark}`)
      s.committed = Math.max(s.committed ?? 0, c ?? 0)
      boundary.committed.set(partition, s.committed)
      await this.readInput(s)
    }

    // 4. Output, dead letters, changelog up to their last stable offsets.
    for (const tp of watched) {
      const off = watchedOffsets.get(tpKey(tp.topic, tp.partition))!
      if (tp.topic === o.outputTopic) await this.readWatched(tp, off, OUTPUT_ROWS, 'output records', (r) => this.addOutput(r))
      else if (tp.topic === dlqTopic) await this.readWatched(tp, off, ['lost'], 'dead letters', (r) => this.addDlq(r))
      else await this.readWatched(tp, off, ['stateMismatches'], 'changelog records', (r) => this.addChangelog(r))
    }

    // 5. Decisions.
    this.pushBoundary(boundary)
    this.decideReached(dlqTopic !== null)

    return this.buildReport(topics, dlqTopic, hasChangelog, committedOffsets, checkNotes)
  }

  private inputState(partition: number): InputPartitionState {
    let s = this.inputs.get(partition)
    if (!s) this.inputs.set(partition, (s = new InputPartitionState(partition)))
    return s
  }

  private note(text: string): void {
    if (this.stickyNotes.length < MAX_NOTES && !this.stickyNotes.includes(text)) this.stickyNotes.push(text)
  }

  private markUnavailable(rows: readonly ValidationRow[], reason: string): void {
    for (const row of rows) if (!this.unavailable.has(row)) this.unavailable.set(row, reason)
  }

  private async read(tp: TopicPartition, from: number, to: number, visit: (r: StoredRecordView) => void): Promise<void> {
    await forEachRecord(this.inspector, tp, from, to, this.pageSize, (r) => {
      this.recordsRead++
      visit(r)
    })
  }

  // ---- input -----------------------------------------------------------------------------------

  private async readInput(s: InputPartitionState): Promise<void> {
    const tp = { topic: this.opts.inputTopic, partition: s.partition }
    const { logStartOffset, lastStableOffset, highWatermark } = s.offsets
    if (s.readFrom === null) {
      s.readFrom = logStartOffset
      s.next = logStartOffset
      s.window.reset(logStartOffset)
      s.forgottenBelow = logStartOffset
      if (logStartOffset > 0 && (s.committed ?? 0) > 0) {
        this.markUnavailable(OUTPUT_ROWS, `${tpKey(tp.topic, tp.partition)} starts at offset ${logStartOffset}: earlier input records are no longer stored`)
      }
    }
    if (logStartOffset > s.next) {
      this.markUnavailable(OUTPUT_ROWS, `${tpKey(tp.topic, tp.partition)}: input records ${s.next}–${logStartOffset - 1} were deleted before they were validated`)
      // The rows are unavailable for good: forget what waits and start over at the log start.
      while (s.window.length > 0) this.decideOne(s, false)
      s.outputs.clear()
      s.dlq.clear()
      s.next = logStartOffset
      s.window.reset(logStartOffset)
    }
    const to = Math.min(Math.max(s.committed ?? 0, logStartOffset), lastStableOffset, highWatermark)
    if (to <= s.next) return
    let audit = this.inputAudits.get(s.partition)
    if (!audit) this.inputAudits.set(s.partition, (audit = new AbortedReadAudit(UNBOUNDED)))
    await this.read(tp, s.next, to, (r) => {
      audit.add(r)
      this.addInput(s, r)
    })
    while (s.next < to) this.pushInput(s, NOT_INPUT, -1, null)
  }

  private addInput(s: InputPartitionState, r: StoredRecordView): void {
    while (s.next < r.offset) this.pushInput(s, NOT_INPUT, -1, null)
    if (!isCommittedRecord(r)) {
      this.pushInput(s, NOT_INPUT, -1, null)
      return
    }
    this.inputRecords++
    const update = inputUpdate(r)
    if (!update) {
      this.poison++
      this.pushInput(s, POISON, -1, null)
      return
    }
    let k = this.keys.get(update.key)
    if (!k) {
      k = { id: this.keyNames.length, partition: s.partition, agg: applyToAggregate(undefined, update.value), lastPartition: s.partition, lastOffset: r.offset }
      this.keys.set(update.key, k)
      this.keyNames.push(update.key)
    } else {
      if (k.partition !== s.partition) this.splitKeys.add(update.key)
      k.agg = applyToAggregate(k.agg, update.value)
      k.lastPartition = s.partition
      k.lastOffset = r.offset
    }
    this.pushInput(s, VALUE, k.id, k.agg)
  }

  /** Appends the input record at s.next to the window, and compares an output already seen for it. */
  private pushInput(s: InputPartitionState, kind: number, keyId: number, agg: Aggregate | null): void {
    const offset = s.next++
    s.window.push(kind, keyId, agg)
    const seen = s.outputs.get(offset)
    if (seen?.first) {
      this.compareFirstOutput(s.partition, offset, kind, keyId, agg, seen.first.key, seen.first.agg, seen.first.at)
      seen.first = null
    }
  }

  /** The first copy of an output against its input record: an orphan, or a state mismatch, or fine. */
  private compareFirstOutput(partition: number, offset: number, kind: number, keyId: number, expected: Aggregate | null, key: string, actual: Aggregate, at: OutputPosition): void {
    if (kind !== VALUE) {
      this.orphanOutputs++
      return
    }
    if (this.keyNames[keyId] === key && sameAggregate(expected!, actual)) return
    this.outputMismatches++
    this.mismatchExamples.add(at, { key, source: { partition, offset }, expected: expected!, actual, where: 'output' })
  }

  // ---- output, dead letters, changelog ---------------------------------------------------------

  private async readWatched(tp: TopicPartition, off: PartitionOffsets, rowsOnGap: readonly ValidationRow[], what: string, visit: (r: StoredRecordView) => void): Promise<void> {
    const k = tpKey(tp.topic, tp.partition)
    let pos = this.positions.get(k)
    if (!pos) this.positions.set(k, (pos = { next: 0, audit: new AbortedReadAudit(UNBOUNDED) }))
    if (off.logStartOffset > pos.next) {
      this.markUnavailable(rowsOnGap, `${k}: ${what} ${pos.next}–${off.logStartOffset - 1} were deleted before they were validated`)
      pos.next = off.logStartOffset
    }
    const to = off.lastStableOffset
    if (to <= pos.next) return
    const audit = pos.audit
    await this.read(tp, pos.next, to, (r) => {
      audit.add(r)
      visit(r)
    })
    pos.next = to
  }

  private addOutput(r: StoredRecordView): void {
    if (!isCommittedRecord(r)) return
    this.outputRecords++
    const v = decodeOutputValue(r.value)
    if (!v) {
      this.malformed.output++
      return
    }
    const { partition, offset } = v.source
    const s = this.inputs.get(partition)
    if (!s || !Number.isSafeInteger(offset) || offset < 0) {
      this.orphanOutputs++
      return
    }
    const agg = toAggregate(v)
    const at = { partition: r.partition, offset: r.offset }
    if (offset >= s.decided) {
      const seen = s.outputs.get(offset)
      if (seen) {
        this.addDuplicate(v.key, partition, offset, ++seen.copies, at)
        return
      }
      const i = s.window.indexOf(offset)
      if (i >= 0) {
        s.outputs.set(offset, { copies: 1, first: null })
        this.compareFirstOutput(partition, offset, s.window.kindAt(i), s.window.keyIdAt(i), s.window.kindAt(i) === VALUE ? s.window.expectedAt(i) : null, v.key, agg, at)
      } else {
        s.outputs.set(offset, { copies: 1, first: { key: v.key, agg, at } })
      }
      return
    }
    // A decided offset.
    const ex = s.exceptions.get(offset)
    if (ex) {
      s.exceptions.delete(offset)
      if (ex.kind === 'lost-value') {
        this.lost--
        this.compareFirstOutput(partition, offset, VALUE, ex.keyId, ex.expected, v.key, agg, at)
      } else {
        if (ex.kind === 'lost-poison') this.lost--
        this.orphanOutputs++
      }
      return
    }
    if (s.readFrom !== null && offset < s.readFrom) {
      this.markUnavailable(['duplicates'], `output records name input offsets below the input's log start offset`)
      return
    }
    if (offset < s.forgottenBelow) {
      const reason = `an output record names input offset ${partition}/${offset}, decided long ago; whether it had an output was no longer kept`
      this.markUnavailable(s.forgotLost ? OUTPUT_ROWS : ['duplicates'], reason)
      return
    }
    const example = this.duplicateExamples.find((e) => e.partition === partition && e.offset === offset)
    this.addDuplicate(v.key, partition, offset, example ? example.copies + 1 : 2, at)
  }

  private addDuplicate(key: string, partition: number, offset: number, copies: number, at: OutputPosition): void {
    this.duplicates++
    if (this.duplicateKeys.has(key) || this.duplicateKeys.size < this.maxDuplicateKeys) this.duplicateKeys.set(key, (this.duplicateKeys.get(key) ?? 0) + 1)
    else this.duplicateKeysTruncated = true
    const examples = this.duplicateExamples
    const seen = examples.find((e) => e.partition === partition && e.offset === offset)
    if (seen) seen.copies = copies
    else examples.add(at, { partition, offset, key, copies })
  }

  private addDlq(r: StoredRecordView): void {
    if (!isCommittedRecord(r)) return
    this.dlqRecords++
    const source = dlqProvenance(r, this.opts.inputTopic)
    const s = source ? this.inputs.get(source.partition) : undefined
    if (!source || !s || s.readFrom === null || source.offset < s.readFrom || source.offset >= s.offsets.highWatermark) {
      this.malformed.dlq++
      return
    }
    if (source.offset >= s.decided) {
      s.dlq.set(source.offset, (s.dlq.get(source.offset) ?? 0) + 1)
      return
    }
    const ex = s.exceptions.get(source.offset)
    if (ex?.kind === 'lost-poison') {
      this.lost--
      s.exceptions.set(source.offset, { kind: 'poison' })
    }
  }

  private addChangelog(r: StoredRecordView): void {
    if (!isCommittedRecord(r)) return
    if (r.value === null) {
      if (r.key !== null) this.changelog.delete(r.key)
      return
    }
    const v = decodeOutputValue(r.value)
    if (!v) {
      this.malformed.changelog++
      return
    }
    this.changelog.set(r.key ?? v.key, { agg: toAggregate(v), partition: v.source.partition, offset: v.source.offset })
  }

  // ---- decisions -------------------------------------------------------------------------------

  private pushBoundary(b: Boundary): void {
    if (this.boundaries.length >= this.maxBoundaries) this.boundaries[this.boundaries.length - 1] = b
    else this.boundaries.push(b)
  }

  private reached(b: Boundary): boolean {
    for (const [k, hw] of b.targets) {
      const pos = this.positions.get(k)
      if (!pos || pos.next < hw) return false
    }
    return true
  }

  private decideReached(withDlq: boolean): void {
    let last: Boundary | null = null
    while (this.boundaries.length > 0 && this.reached(this.boundaries[0]!)) last = this.boundaries.shift()!
    if (!last) return
    for (const [partition, c] of last.committed) {
      const s = this.inputs.get(partition)
      if (!s) continue
      const end = Math.min(c, s.next)
      while (s.decided < end) this.decideOne(s, withDlq)
    }
  }

  /** Decides the offset at the decision watermark: it had an output, or a dead letter, or it is lost. */
  private decideOne(s: InputPartitionState, withDlq: boolean): void {
    const w = s.window
    const offset = w.base
    const i = w.indexOf(offset)
    const kind = w.kindAt(i)
    const seen = s.outputs.get(offset)
    const dead = s.dlq.get(offset) ?? 0
    s.outputs.delete(offset)
    s.dlq.delete(offset)
    let ex: Exception | null = null
    if (!seen) {
      if (kind === VALUE) {
        this.lost++
        ex = { kind: 'lost-value', keyId: w.keyIdAt(i), expected: w.expectedAt(i) }
      } else if (kind === POISON) {
        if (withDlq && dead === 0) {
          this.lost++
          ex = { kind: 'lost-poison' }
        } else {
          ex = { kind: 'poison' }
        }
      } else {
        ex = { kind: 'not-input' }
      }
    }
    w.shift()
    if (!ex) return
    s.exceptions.set(offset, ex)
    if (s.exceptions.size > this.maxExceptions) {
      const [oldest, dropped] = s.exceptions.entries().next().value as [number, Exception]
      s.exceptions.delete(oldest)
      s.forgottenBelow = oldest + 1
      if (dropped.kind === 'lost-value' || dropped.kind === 'lost-poison') s.forgotLost = true
    }
  }

  private isDecided(partition: number, offset: number): boolean {
    const s = this.inputs.get(partition)
    return s !== undefined && offset < s.decided
  }

  /** Keys whose latest committed changelog value differs from the recomputation, among the keys both sides have settled. */
  private compareChangelog(): string[] {
    const out: string[] = []
    for (const [key, k] of this.keys) {
      if (!this.isDecided(k.lastPartition, k.lastOffset)) continue
      const c = this.changelog.get(key)
      if (c && c.partition === k.lastPartition && c.offset > k.lastOffset) continue // the changelog is ahead of the committed input
      if (!c || !sameAggregate(c.agg, k.agg)) out.push(key)
    }
    for (const [key, c] of this.changelog) {
      if (!this.keys.has(key) && this.isDecided(c.partition, c.offset)) out.push(key)
    }
    return out.sort()
  }

  // ---- report ----------------------------------------------------------------------------------

  private async buildReport(
    topics: ReadonlyMap<string, number>,
    dlqTopic: string | null,
    hasChangelog: boolean,
    committedOffsets: ValidationReport['committedOffsets'],
    checkNotes: string[],
  ): Promise<ValidationReport> {
    const open = await openTransactionPartitions(this.inspector, topics, this.opts, dlqTopic)
    const o = this.opts
    const notes: string[] = []
    const split = [...this.splitKeys].sort()
    if (split.length > 0) {
      notes.push(
        `${split.length} key(s) occur in more than one input partition (${split.slice(0, MAX_EXAMPLES).join(', ')}): the recomputation applies them in the order the checks read them, which may differ from the engine's`,
      )
    }
    notes.push(...checkNotes, ...this.stickyNotes)
    if (this.duplicateKeysTruncated) notes.push(`duplicateKeys lists the first ${this.maxDuplicateKeys} keys only`)
    if (!hasChangelog) notes.push(`no changelog topic ${o.changelogTopic}: final state not checked against it`)

    const examples = this.mismatchExamples.list()
    const final = new Map<string, Aggregate>()
    for (const [key, k] of this.keys) final.set(key, k.agg)
    let changelogMismatches: number | null = null
    if (hasChangelog) {
      const keys = this.compareChangelog()
      changelogMismatches = keys.length
      for (const key of keys) {
        if (examples.length >= MAX_EXAMPLES) break
        const c = this.changelog.get(key)
        examples.push({ key, source: null, expected: final.get(key) ?? null, actual: c ? c.agg : null, where: 'changelog' })
      }
    }
    let finalStateMismatches: number | null = null
    if (o.finalState) {
      const keys = differingKeys(final, o.finalState)
      finalStateMismatches = keys.length
      for (const key of keys) {
        if (examples.length >= MAX_EXAMPLES) break
        examples.push({ key, source: null, expected: final.get(key) ?? null, actual: o.finalState.get(key) ?? null, where: 'finalState' })
      }
    }

    // Outputs waiting for their input: beyond the committed offset, or naming no stored record yet.
    let beyond = 0
    let orphanNow = 0
    let abortedReads = 0
    let abortedReadsUncommitted = 0
    for (const s of this.inputs.values()) {
      for (const [offset, seen] of s.outputs) {
        if (!seen.first) continue
        if (offset < s.offsets.highWatermark) beyond++
        else orphanNow++
      }
    }
    for (const audit of [...this.inputAudits.values(), ...[...this.positions.values()].map((p) => p.audit)]) {
      const c = audit.result()
      abortedReads += c.abortedReads
      abortedReadsUncommitted += c.abortedReadsUncommitted
    }

    const lostExamples: { partition: number; offset: number }[] = []
    for (const partition of [...this.inputs.keys()].sort((a, b) => a - b)) {
      for (const [offset, ex] of this.inputs.get(partition)!.exceptions) {
        if (lostExamples.length >= MAX_EXAMPLES) break
        if (ex.kind === 'lost-value' || ex.kind === 'lost-poison') lostExamples.push({ partition, offset })
      }
    }

    const by = { output: this.outputMismatches, changelog: changelogMismatches, finalState: finalStateMismatches }
    const report: ValidationReport = {
      groupId: o.groupId,
      inputTopic: o.inputTopic,
      outputTopic: o.outputTopic,
      changelogTopic: o.changelogTopic,
      dlqTopic,
      inputRecords: this.inputRecords,
      poison: this.poison,
      outputRecords: this.outputRecords,
      dlqRecords: this.dlqRecords,
      malformed: { ...this.malformed },
      duplicates: this.duplicates,
      duplicateKeys: countsByKey(this.duplicateKeys),
      lost: this.lost,
      abortedReads,
      abortedReadsUncommitted,
      stateMismatches: by.output + (by.changelog ?? 0) + (by.finalState ?? 0),
      stateMismatchesBy: by,
      openTransactions: open.length,
      openTransactionPartitions: open,
      orphanOutputs: this.orphanOutputs + orphanNow,
      outputsBeyondCommitted: beyond,
      committedOffsets,
      unavailable: [],
      notes,
      examples: { duplicates: this.duplicateExamples.list().map((e) => ({ ...e })), lost: lostExamples, stateMismatches: examples },
    }
    for (const [row, reason] of this.unavailable) {
      if (row === 'duplicates' || row === 'lost' || row === 'stateMismatches') report[row] = null
      report.unavailable.push({ row, reason })
    }
    return report
  }
}

function countsByKey(counts: ReadonlyMap<string, number>): KeyCount[] {
  return [...counts].map(([key, count]) => ({ key, count })).sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1))
}

