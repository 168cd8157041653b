// The validator for long live runs: the same rows as validateRun (docs/measures.md, "Correctness"),
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
// Memory, held by the ledger (incremental-ledger.ts), per input partition: the undecided input
// records (offsets from the decision watermark to the read position: a check's worth of records,
// or what an open transaction holds back), the outputs and dead letters seen ahead of their
// input, and the decided offsets that had no output (lost, poison, not an input record), capped
// (maxExceptionsPerPartition). Per key one aggregate and its latest changelog value. Per producer
// with an open transaction one counter pair. Nothing per record once decided: an output naming a
// decided offset that is not an exception is a duplicate.
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
import { type Aggregate, DEFAULT_DLQ_TOPIC } from '../../lib/records.ts'
import { AbortedReadAudit, sumAbortedReads } from './read-committed.ts'
import { differingKeys } from './recompute.ts'
import type { ValidationReport, ValidationRow } from './report.ts'
import type { ValidateOptions } from './validator.ts'
import { DEFAULT_PAGE_SIZE, forEachPage } from './log-pages.ts'
import { openTransactionPartitions } from './open-transactions.ts'
import { type InputPartitionState, type PoisonWithoutDeadLetter, ValidationLedger } from './incremental-ledger.ts'
import { OUTPUT_ROWS, assembleReport, finalMismatches, splitKeysNote } from './tally.ts'

export interface IncrementalValidateOptions extends ValidateOptions {
  /** Decided input offsets without an output kept per partition (lost, poison, non-input); default 20 000. */
  maxExceptionsPerPartition?: number
  /** Checks whose decisions wait for open transactions; default 32 (older waiting ones merge into newer). */
  maxPendingBoundaries?: number
  /** Distinct keys kept for duplicateKeys; default 10 000. */
  maxDuplicateKeys?: number
  /**
   * Runs between pages read: a live lab lets other work run there (its workers, their heartbeats).
   * Catching up on millions of records in one turn held the event loop for seconds, past
   * session.timeout.ms, and the group evicted every member.
   */
  betweenPages?: () => Promise<void>
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

const MAX_NOTES = 50

/** The committed offsets of one check, and how far every watched partition must be read before they are final. */
interface Boundary {
  committed: Map<number, number>
  /** tpKey → high watermark the partition must be read up to. */
  targets: Map<string, number>
}

interface ReadPosition {
  next: number
  audit: AbortedReadAudit
}

/** What one check found about the topics, for its report. */
interface CheckContext {
  topics: ReadonlyMap<string, number>
  dlqTopic: string | null
  hasChangelog: boolean
  committedOffsets: ValidationReport['committedOffsets']
  notes: string[]
}

const UNBOUNDED = { lastStableOffset: Number.POSITIVE_INFINITY, highWatermark: Number.POSITIVE_INFINITY }

/**
 * Validates a live run from its logs, reading only what is new since the previous check.
 * check() returns the same report as validateRun; see the header for where they differ.
 */
export class IncrementalValidator {
  private readonly pageSize: number
  private readonly maxBoundaries: number
  private readonly dlqName: string | null
  private readonly ledger: ValidationLedger

  /** Read positions and audits of the output, dead-letter and changelog partitions. */
  private readonly positions = new Map<string, ReadPosition>()
  private readonly inputAudits = new Map<number, AbortedReadAudit>()
  private readonly boundaries: Boundary[] = []
  private readonly stickyNotes: string[] = []
  private recordsRead = 0
  private hadDlqTopic = false
  private queue: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly inspector: LogInspector,
    private readonly opts: IncrementalValidateOptions,
  ) {
    this.pageSize = opts.pageSize ?? DEFAULT_PAGE_SIZE
    this.maxBoundaries = Math.max(1, opts.maxPendingBoundaries ?? 32)
    this.dlqName = opts.dlqTopic === undefined ? DEFAULT_DLQ_TOPIC : opts.dlqTopic
    this.ledger = new ValidationLedger(
      opts.inputTopic,
      opts.maxExceptionsPerPartition ?? 20_000,
      opts.maxDuplicateKeys ?? 10_000,
    )
  }

  /** Reads what is new and returns the report as of now. Calls are serialized. */
  check(): Promise<ValidationReport> {
    const run = this.queue.then(() => this.runCheck())
    this.queue = run.catch(() => undefined)
    return run
  }

  /** The offset from which this validator still needs a partition's records: retention must keep them. */
  keepFrom(tp: TopicPartition): number {
    if (tp.topic === this.opts.inputTopic) return this.ledger.inputs.get(tp.partition)?.next ?? 0
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
    for (const s of this.ledger.inputs.values()) {
      undecidedInputs += s.window.length
      outputsAhead += s.outputs.size
      dlqAhead += s.dlq.size
      exceptions += s.exceptions.size
    }
    const { keys, changelog } = this.ledger
    return {
      undecidedInputs,
      outputsAhead,
      dlqAhead,
      exceptions,
      keys: keys.size,
      changelogKeys: changelog.size,
      pendingBoundaries: this.boundaries.length,
      recordsRead: this.recordsRead,
    }
  }

  // ---- one check -----------------------------------------------------------------------------

  private async runCheck(): Promise<ValidationReport> {
    const o = this.opts
    const topics = new Map((await this.inspector.topics()).map((t) => [t.topic, t.partitions]))
    for (const topic of [o.inputTopic, o.outputTopic]) {
      if (!topics.has(topic)) throw new Error(`cannot validate: topic ${topic} does not exist`)
    }
    const dlqTopic = this.dlqName !== null && topics.has(this.dlqName) ? this.dlqName : null
    const inputs = [...this.ledger.inputs.values()]
    if (dlqTopic !== null && !this.hadDlqTopic && inputs.some((s) => s.decided > 0)) {
      this.note(
        `dead-letter topic ${dlqTopic} appeared during the run: poison records decided before it were not ` +
          `checked against it`,
      )
    }
    this.hadDlqTopic = dlqTopic !== null
    const context: CheckContext = {
      topics,
      dlqTopic,
      hasChangelog: topics.has(o.changelogTopic),
      committedOffsets: [],
      notes: [],
    }

    // 1. Committed offsets first.
    const committed = new Map<number, number>()
    for (const c of await this.inspector.committedOffsets(o.groupId))
      if (c.topic === o.inputTopic) committed.set(c.partition, c.offset)

    // 2. Where every partition an output may land in stands now.
    const watched = new Map<string, { tp: TopicPartition; offsets: PartitionOffsets }>()
    for (const topic of [o.outputTopic, dlqTopic, context.hasChangelog ? o.changelogTopic : null]) {
      if (topic === null) continue
      for (let partition = 0; partition < topics.get(topic)!; partition++) {
        const tp = { topic, partition }
        watched.set(tpKey(topic, partition), { tp, offsets: await this.inspector.offsets(tp) })
      }
    }
    const boundary: Boundary = { committed: new Map(), targets: new Map() }
    for (const [k, w] of watched) boundary.targets.set(k, w.offsets.highWatermark)

    // 3. Input up to the committed offsets.
    for (let partition = 0; partition < topics.get(o.inputTopic)!; partition++) {
      const s = await this.advanceCommitted(partition, committed.get(partition) ?? null, context)
      boundary.committed.set(partition, s.committed!)
      await this.readInput(s)
    }

    // 4. Output, dead letters, changelog up to their last stable offsets.
    const ledger = this.ledger
    for (const [, { tp, offsets }] of watched) {
      if (tp.topic === o.outputTopic)
        await this.readWatched(tp, offsets, OUTPUT_ROWS, 'output records', (r) => ledger.addOutput(r))
      else if (tp.topic === dlqTopic)
        await this.readWatched(tp, offsets, ['lost'], 'dead letters', (r) => ledger.addDlq(r))
      else await this.readWatched(tp, offsets, ['stateMismatches'], 'changelog records', (r) => ledger.addChangelog(r))
    }

    // 5. Decisions.
    this.pushBoundary(boundary)
    this.decideReached(dlqTopic !== null ? 'lost' : 'expected')

    return this.buildReport(context)
  }

  /** Reads an input partition's offsets and the group's committed offset for it. */
  private async advanceCommitted(
    partition: number,
    c: number | null,
    context: CheckContext,
  ): Promise<InputPartitionState> {
    const topic = this.opts.inputTopic
    const s = this.ledger.inputState(partition)
    s.offsets = await this.inspector.offsets({ topic, partition })
    context.committedOffsets.push({
      partition,
      committedOffset: c,
      logStartOffset: s.offsets.logStartOffset,
      highWatermark: s.offsets.highWatermark,
    })
    if (c !== null && s.lastCommitted !== null && c < s.lastCommitted) {
      this.note(
        `${tpKey(topic, partition)}: the committed offset went back from ${s.lastCommitted} to ${c}; offsets ` +
          `below ${s.lastCommitted} stay decided`,
      )
    }
    if (c !== null) s.lastCommitted = c
    if (c !== null && c > s.offsets.highWatermark)
      context.notes.push(
        `${tpKey(topic, partition)}: committed offset ${c} is past the high watermark ${s.offsets.highWatermark}`,
      )
    s.committed = Math.max(s.committed ?? 0, c ?? 0)
    return s
  }

  private note(text: string): void {
    if (this.stickyNotes.length < MAX_NOTES && !this.stickyNotes.includes(text)) this.stickyNotes.push(text)
  }

  private markUnavailable(rows: readonly ValidationRow[], reason: string): void {
    this.ledger.unavailable.mark(rows, reason)
  }

  private async read(
    tp: TopicPartition,
    from: number,
    to: number,
    audit: AbortedReadAudit,
    visit: (r: StoredRecordView) => void,
  ): Promise<void> {
    const between = this.opts.betweenPages
    await forEachPage(this.inspector, tp, from, to, this.pageSize, async (page) => {
      for (const r of page) {
        this.recordsRead++
        audit.add(r)
        visit(r)
      }
      if (between) await between()
    })
  }

  // ---- reading ---------------------------------------------------------------------------------

  private async readInput(s: InputPartitionState): Promise<void> {
    const tp = { topic: this.opts.inputTopic, partition: s.partition }
    const { logStartOffset, lastStableOffset, highWatermark } = s.offsets
    if (s.readFrom === null) {
      this.ledger.startInput(s, logStartOffset)
      if (logStartOffset > 0 && (s.committed ?? 0) > 0) {
        this.markUnavailable(
          OUTPUT_ROWS,
          `${tpKey(tp.topic, tp.partition)} starts at offset ${logStartOffset}: earlier input records are no ` +
            `longer stored`,
        )
      }
    }
    if (logStartOffset > s.next) {
      this.markUnavailable(
        OUTPUT_ROWS,
        `${tpKey(tp.topic, tp.partition)}: input records ${s.next}–${logStartOffset - 1} were deleted before ` +
          `they were validated`,
      )
      this.ledger.restartInput(s, logStartOffset)
    }
    const to = Math.min(Math.max(s.committed ?? 0, logStartOffset), lastStableOffset, highWatermark)
    if (to <= s.next) return
    let audit = this.inputAudits.get(s.partition)
    if (!audit) {
      audit = new AbortedReadAudit(UNBOUNDED)
      this.inputAudits.set(s.partition, audit)
    }
    await this.read(tp, s.next, to, audit, (r) => this.ledger.addInput(s, r))
    this.ledger.fillTo(s, to)
  }

  private async readWatched(
    tp: TopicPartition,
    off: PartitionOffsets,
    rowsOnGap: readonly ValidationRow[],
    what: string,
    visit: (r: StoredRecordView) => void,
  ): Promise<void> {
    const k = tpKey(tp.topic, tp.partition)
    let pos = this.positions.get(k)
    if (!pos) {
      pos = { next: 0, audit: new AbortedReadAudit(UNBOUNDED) }
      this.positions.set(k, pos)
    }
    if (off.logStartOffset > pos.next) {
      this.markUnavailable(
        rowsOnGap,
        `${k}: ${what} ${pos.next}–${off.logStartOffset - 1} were deleted before they were validated`,
      )
      pos.next = off.logStartOffset
    }
    const to = off.lastStableOffset
    if (to <= pos.next) return
    await this.read(tp, pos.next, to, pos.audit, visit)
    pos.next = to
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

  /** The latest boundary every watched partition has been read up to makes its committed offsets final. */
  private decideReached(poison: PoisonWithoutDeadLetter): void {
    let last: Boundary | null = null
    while (this.boundaries.length > 0 && this.reached(this.boundaries[0]!)) last = this.boundaries.shift()!
    if (!last) return
    for (const [partition, c] of last.committed) {
      const s = this.ledger.inputs.get(partition)
      if (s) this.ledger.decideUpTo(s, Math.min(c, s.next), poison)
    }
  }

  // ---- report ----------------------------------------------------------------------------------

  private async buildReport(context: CheckContext): Promise<ValidationReport> {
    const o = this.opts
    const ledger = this.ledger
    const notes: string[] = []
    const split = splitKeysNote(ledger.keys.split, 'in the order the checks read them')
    if (split) notes.push(split)
    notes.push(...context.notes, ...this.stickyNotes)
    if (ledger.duplicateKeysTruncated) notes.push(`duplicateKeys lists the first ${ledger.maxDuplicateKeys} keys only`)
    if (!context.hasChangelog) notes.push(`no changelog topic ${o.changelogTopic}: final state not checked against it`)

    const examples = ledger.mismatchExamples.list()
    const final: ReadonlyMap<string, Aggregate> = ledger.recomputation.final()
    const finalMismatchKeys = new Set<string>()
    const changelogMismatches = context.hasChangelog
      ? finalMismatches(
          ledger.changelogMismatchKeys(),
          final,
          (key) => ledger.changelog.get(key)?.agg,
          'changelog',
          examples,
          finalMismatchKeys,
        )
      : null
    const finalState = o.finalState
    const finalStateMismatches = finalState
      ? finalMismatches(
          differingKeys(final, finalState),
          final,
          (key) => finalState.get(key),
          'finalState',
          examples,
          finalMismatchKeys,
        )
      : null
    const waiting = ledger.waitingOutputs()
    return assembleReport(
      o,
      ledger.tally,
      {
        dlqTopic: context.dlqTopic,
        abortedReads: sumAbortedReads([
          ...this.inputAudits.values(),
          ...[...this.positions.values()].map((p) => p.audit),
        ]),
        pendingOrphans: waiting.orphans,
        outputsBeyondCommitted: waiting.beyondCommitted,
        changelogMismatches,
        finalStateMismatches,
        finalMismatchKeys,
        openTransactionPartitions: await openTransactionPartitions(this.inspector, context.topics, o, context.dlqTopic),
        committedOffsets: context.committedOffsets,
        notes,
        examples: {
          duplicates: ledger.duplicateExamples.list().map((e) => ({ ...e })),
          lost: ledger.lostExamples(),
          stateMismatches: examples,
        },
      },
      ledger.unavailable,
    )
  }
}
