// What the incremental validator knows between checks, fed record by record, with no I/O of its
// own: per input partition the undecided input records, the outputs and dead letters seen ahead of
// them and the decided offsets that had no output (exceptions); per key the recomputed aggregate,
// where its latest input is and its latest changelog value; the counts and examples of the report.
// incremental-validator.ts decides what to read and when an offset is final.

import type { PartitionOffsets, StoredRecordView } from '../log/types.ts'
import { type Aggregate, type Provenance, aggregatesEqual, decodeOutputValue } from '../../lib/records.ts'
import { isCommittedRecord } from './read-committed.ts'
import { AggregateRecomputation, inputUpdate } from './recompute.ts'
import { dlqProvenance } from './provenance.ts'
import type { StateMismatchExample, ValidationReport } from './report.ts'
import { InputWindow, KeyTable, NOT_INPUT, POISON, VALUE } from './input-model.ts'
import { MAX_EXAMPLES, OUTPUT_ROWS, UnavailableRows, countDuplicate, newTally, toAggregate } from './tally.ts'

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
  private readonly items: { at: OutputPosition; item: T }[] = []
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

type Exception =
  | { kind: 'lost-value'; keyId: number; expected: Aggregate }
  | { kind: 'lost-poison' }
  | { kind: 'poison' }
  | { kind: 'not-input' }

function isLost(ex: Exception): boolean {
  return ex.kind === 'lost-value' || ex.kind === 'lost-poison'
}

export class InputPartitionState {
  /** The first offset this validator read; null before the first read. */
  readFrom: number | null = null
  /** Input read position: records below it are recomputed. */
  next = 0
  /** The undecided records; its base is the decision watermark: every offset below it is decided. */
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

interface ChangelogValue {
  agg: Aggregate
  partition: number
  offset: number
}

/** Whether a poison record without a dead letter is lost: only where a dead-letter topic exists. */
export type PoisonWithoutDeadLetter = 'lost' | 'expected'

export class ValidationLedger {
  readonly tally = newTally()
  readonly unavailable = new UnavailableRows()
  readonly inputs = new Map<number, InputPartitionState>()
  readonly keys = new KeyTable()
  readonly recomputation = new AggregateRecomputation()
  /** Where each key's latest committed input record is. */
  private readonly lastInput = new Map<string, Provenance>()
  readonly changelog = new Map<string, ChangelogValue>()
  duplicateKeysTruncated = false
  readonly duplicateExamples = new FirstExamples<ValidationReport['examples']['duplicates'][number]>()
  readonly mismatchExamples = new FirstExamples<StateMismatchExample>()

  constructor(
    private readonly inputTopic: string,
    private readonly maxExceptions: number,
    readonly maxDuplicateKeys: number,
  ) {}

  inputState(partition: number): InputPartitionState {
    let s = this.inputs.get(partition)
    if (!s) {
      s = new InputPartitionState(partition)
      this.inputs.set(partition, s)
    }
    return s
  }

  // ---- input -----------------------------------------------------------------------------------

  /** The first read of a partition starts at its log start. */
  startInput(s: InputPartitionState, logStartOffset: number): void {
    s.readFrom = logStartOffset
    s.next = logStartOffset
    s.window.reset(logStartOffset)
    s.forgottenBelow = logStartOffset
  }

  /**
   * Input records were deleted unread: the rows are unavailable for good, so forget
   * what waits and start over at the log start.
   */
  restartInput(s: InputPartitionState, logStartOffset: number): void {
    while (s.window.length > 0) this.decideOne(s, 'expected')
    s.outputs.clear()
    s.dlq.clear()
    s.next = logStartOffset
    s.window.reset(logStartOffset)
  }

  addInput(s: InputPartitionState, r: StoredRecordView): void {
    this.fillTo(s, r.offset)
    if (!isCommittedRecord(r)) {
      this.pushInput(s, NOT_INPUT, -1, null)
      return
    }
    this.tally.inputRecords++
    const update = inputUpdate(r)
    if (!update) {
      this.tally.poison++
      this.pushInput(s, POISON, -1, null)
      return
    }
    const id = this.keys.intern(update.key, s.partition)
    const agg = this.recomputation.apply(update.key, update.value)
    this.lastInput.set(update.key, { partition: s.partition, offset: r.offset })
    this.pushInput(s, VALUE, id, agg)
  }

  /** Offsets up to `to` that held no record (compacted away, or past the last record read) hold no input. */
  fillTo(s: InputPartitionState, to: number): void {
    while (s.next < to) this.pushInput(s, NOT_INPUT, -1, null)
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
  private compareFirstOutput(
    partition: number,
    offset: number,
    kind: number,
    keyId: number,
    expected: Aggregate | null,
    key: string,
    actual: Aggregate,
    at: OutputPosition,
  ): void {
    if (kind !== VALUE) {
      this.tally.orphanOutputs++
      return
    }
    if (this.tally.drift.noteOutput(key, this.keys.idOf(key) === keyId ? 'input-key' : 'other-key', expected!, actual))
      this.mismatchExamples.add(at, {
        key,
        source: { partition, offset },
        expected: expected!,
        actual,
        where: 'output',
      })
  }

  // ---- output, dead letters, changelog ---------------------------------------------------------

  addOutput(r: StoredRecordView): void {
    if (!isCommittedRecord(r)) return
    this.tally.outputRecords++
    const v = decodeOutputValue(r.value)
    if (!v) {
      this.tally.malformed.output++
      return
    }
    const { partition, offset } = v.source
    const s = this.inputs.get(partition)
    if (!s || !Number.isSafeInteger(offset) || offset < 0) {
      this.tally.orphanOutputs++
      return
    }
    const agg = toAggregate(v)
    const at = { partition: r.partition, offset: r.offset }
    if (offset >= s.decided) this.addUndecidedOutput(s, offset, v.key, agg, at)
    else this.addDecidedOutput(s, offset, v.key, agg, at)
  }

  private addUndecidedOutput(
    s: InputPartitionState,
    offset: number,
    key: string,
    agg: Aggregate,
    at: OutputPosition,
  ): void {
    const seen = s.outputs.get(offset)
    if (seen) {
      this.addDuplicate(key, s.partition, offset, ++seen.copies, at)
      return
    }
    const w = s.window
    const i = w.indexOf(offset)
    if (i < 0) {
      s.outputs.set(offset, { copies: 1, first: { key, agg, at } })
      return
    }
    s.outputs.set(offset, { copies: 1, first: null })
    this.compareFirstOutput(
      s.partition,
      offset,
      w.kindAt(i),
      w.keyIdAt(i),
      w.kindAt(i) === VALUE ? w.expectedAt(i) : null,
      key,
      agg,
      at,
    )
  }

  private addDecidedOutput(
    s: InputPartitionState,
    offset: number,
    key: string,
    agg: Aggregate,
    at: OutputPosition,
  ): void {
    const partition = s.partition
    const ex = s.exceptions.get(offset)
    if (ex) {
      s.exceptions.delete(offset)
      if (isLost(ex)) this.tally.lost--
      if (ex.kind === 'lost-value')
        this.compareFirstOutput(partition, offset, VALUE, ex.keyId, ex.expected, key, agg, at)
      else this.tally.orphanOutputs++
      return
    }
    if (s.readFrom !== null && offset < s.readFrom) {
      this.unavailable.mark(['duplicates'], `output records name input offsets below the input's log start offset`)
      return
    }
    if (offset < s.forgottenBelow) {
      const reason =
        `an output record names input offset ${partition}/${offset}, decided long ago; whether it had an output ` +
        `was no longer kept`
      this.unavailable.mark(s.forgotLost ? OUTPUT_ROWS : ['duplicates'], reason)
      return
    }
    const example = this.duplicateExamples.find((e) => e.partition === partition && e.offset === offset)
    this.addDuplicate(key, partition, offset, example ? example.copies + 1 : 2, at)
  }

  private addDuplicate(key: string, partition: number, offset: number, copies: number, at: OutputPosition): void {
    if (!countDuplicate(this.tally, key, this.maxDuplicateKeys)) this.duplicateKeysTruncated = true
    const examples = this.duplicateExamples
    const seen = examples.find((e) => e.partition === partition && e.offset === offset)
    if (seen) seen.copies = copies
    else examples.add(at, { partition, offset, key, copies })
  }

  addDlq(r: StoredRecordView): void {
    if (!isCommittedRecord(r)) return
    this.tally.dlqRecords++
    const source = dlqProvenance(r, this.inputTopic)
    const s = source ? this.inputs.get(source.partition) : undefined
    if (
      !source ||
      !s ||
      s.readFrom === null ||
      source.offset < s.readFrom ||
      source.offset >= s.offsets.highWatermark
    ) {
      this.tally.malformed.dlq++
      return
    }
    if (source.offset >= s.decided) {
      s.dlq.set(source.offset, (s.dlq.get(source.offset) ?? 0) + 1)
      return
    }
    const ex = s.exceptions.get(source.offset)
    if (ex?.kind === 'lost-poison') {
      this.tally.lost--
      s.exceptions.set(source.offset, { kind: 'poison' })
    }
  }

  addChangelog(r: StoredRecordView): void {
    if (!isCommittedRecord(r)) return
    if (r.value === null) {
      if (r.key !== null) this.changelog.delete(r.key)
      return
    }
    const v = decodeOutputValue(r.value)
    if (!v) {
      this.tally.malformed.changelog++
      return
    }
    this.changelog.set(r.key ?? v.key, { agg: toAggregate(v), partition: v.source.partition, offset: v.source.offset })
  }

  // ---- decisions -------------------------------------------------------------------------------

  /** Decides every offset of the partition below `end`. */
  decideUpTo(s: InputPartitionState, end: number, poison: PoisonWithoutDeadLetter): void {
    while (s.decided < end) this.decideOne(s, poison)
  }

  /** Decides the offset at the decision watermark: it had an output, or a dead letter, or it is lost. */
  private decideOne(s: InputPartitionState, poison: PoisonWithoutDeadLetter): void {
    const w = s.window
    const offset = w.base
    const i = w.indexOf(offset)
    const seen = s.outputs.get(offset)
    const deadLetters = s.dlq.get(offset) ?? 0
    s.outputs.delete(offset)
    s.dlq.delete(offset)
    const ex = seen ? null : this.exceptionAt(w, i, deadLetters === 0 ? poison : 'expected')
    w.shift()
    if (!ex) return
    if (isLost(ex)) this.tally.lost++
    s.exceptions.set(offset, ex)
    if (s.exceptions.size > this.maxExceptions) {
      const [oldest, dropped] = s.exceptions.entries().next().value as [number, Exception]
      s.exceptions.delete(oldest)
      s.forgottenBelow = oldest + 1
      if (isLost(dropped)) s.forgotLost = true
    }
  }

  /** What an input offset without an output is. */
  private exceptionAt(w: InputWindow, i: number, poison: PoisonWithoutDeadLetter): Exception {
    const kind = w.kindAt(i)
    if (kind === VALUE) return { kind: 'lost-value', keyId: w.keyIdAt(i), expected: w.expectedAt(i) }
    if (kind === POISON) return poison === 'lost' ? { kind: 'lost-poison' } : { kind: 'poison' }
    return { kind: 'not-input' }
  }

  private isDecided(partition: number, offset: number): boolean {
    const s = this.inputs.get(partition)
    return s !== undefined && offset < s.decided
  }

  // ---- what the report reads -------------------------------------------------------------------

  /**
   * Keys whose latest committed changelog value differs from the recomputation, among the keys both sides have settled.
   */
  changelogMismatchKeys(): string[] {
    const out: string[] = []
    const final = this.recomputation.final()
    for (const [key, last] of this.lastInput) {
      if (!this.isDecided(last.partition, last.offset)) continue
      const c = this.changelog.get(key)
      // the changelog is ahead of the committed input
      if (c && c.partition === last.partition && c.offset > last.offset) continue
      if (!c || !aggregatesEqual(c.agg, final.get(key))) out.push(key)
    }
    for (const [key, c] of this.changelog) {
      if (!this.lastInput.has(key) && this.isDecided(c.partition, c.offset)) out.push(key)
    }
    return out.sort()
  }

  /** Outputs waiting for their input: beyond the committed offset, or naming no stored record yet (orphans for now). */
  waitingOutputs(): { beyondCommitted: number; orphans: number } {
    let beyondCommitted = 0
    let orphans = 0
    for (const s of this.inputs.values()) {
      for (const [offset, seen] of s.outputs) {
        if (!seen.first) continue
        if (offset < s.offsets.highWatermark) beyondCommitted++
        else orphans++
      }
    }
    return { beyondCommitted, orphans }
  }

  lostExamples(): Provenance[] {
    const out: Provenance[] = []
    for (const partition of [...this.inputs.keys()].sort((a, b) => a - b)) {
      for (const [offset, ex] of this.inputs.get(partition)!.exceptions) {
        if (out.length >= MAX_EXAMPLES) break
        if (isLost(ex)) out.push({ partition, offset })
      }
    }
    return out
  }
}
