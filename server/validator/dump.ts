// A run's logs as files, and a LogInspector over such files, so anyone can re-validate a run, or
// validate a dump made elsewhere in the same format, without eoscope's engine.
//
// Layout of a dump directory:
//   <topic>-<partition>.jsonl  every stored record of the partition, markers included, one JSON object a line
//   topics.json                every topic's partitions with their log start, last stable and high watermark offsets
//   committed-offsets.json     the consumer group's committed offsets
//   README.txt                 what the fields mean

import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import { once } from 'node:events'
import { join } from 'node:path'
import { createInterface, type Interface } from 'node:readline'
import type {
  ControlType,
  Headers,
  LogInspector,
  OffsetToCommit,
  PartitionOffsets,
  StoredRecordView,
  TopicPartition,
  TxnOutcome,
} from '../log/types.ts'
import { tpKey } from '../log/types.ts'
import { DEFAULT_INPUT_TOPIC, DEFAULT_OUTPUT_TOPIC, changelogTopic } from '../../lib/records.ts'
import { type ValidateOptions, validateRun } from './validator.ts'
import type { ValidationReport } from './report.ts'
import { DEFAULT_PAGE_SIZE, forEachPage } from './log-pages.ts'

export const TOPICS_FILE = 'topics.json'
export const COMMITTED_OFFSETS_FILE = 'committed-offsets.json'

/**
 * One line of a partition file: the stored record without its topic and partition
 * (the file names them), headers null when none.
 */
export type DumpLine = Omit<StoredRecordView, 'topic' | 'partition' | 'headers'> & { headers: Headers | null }

export interface TopicsFile {
  topics: { topic: string; partitions: (PartitionOffsets & { partition: number })[] }[]
}

export interface CommittedOffsetsFile {
  groupId: string
  offsets: OffsetToCommit[]
}

const README = `A dump of an eoscope run's logs.

<topic>-<partition>.jsonl
  Every record stored in the partition, control markers included, in offset order, one JSON
  object a line:
    offset         the record's offset in the partition
    key, value     the record's key and value as text (null when absent)
    headers        the record's headers as an object of text values (null when none)
    timestamp      the record's timestamp, milliseconds since the epoch
    producerId     the producer id of the batch the record was written in (-1: none)
    producerEpoch  that producer's epoch
    sequence       the record's sequence number from an idempotent producer (-1: none)
    transactional  whether the record was written inside a transaction
    control        "COMMIT" or "ABORT" for a transaction marker, null for a data record
    txnOutcome     the outcome of the record's transaction: "committed", "aborted", or
                   "pending" (still open); null for a record written outside transactions
  Output and changelog values are JSON: {"key","count","sum","min","max","source":{"partition","offset"}},
  the running aggregate of the key and the input record (partition, offset) that produced it.
  Dead letters carry their input record in the headers __streams.errors.partition and
  __streams.errors.offset.

topics.json
  Every topic and partition with its logStartOffset (first stored offset), lastStableOffset
  (where a read_committed consumer stops: the first offset of the earliest open transaction)
  and highWatermark (the offset after the last record).

committed-offsets.json
  The consumer group's committed offsets: {"groupId", "offsets": [{"topic","partition","offset"}]},
  each the next input offset to process.

A record is committed when a read_committed consumer can see it: written outside any
transaction, or in a transaction that committed.
`

export function toDumpLine(r: StoredRecordView): DumpLine {
  return {
    offset: r.offset,
    key: r.key,
    value: r.value,
    headers: r.headers ?? null,
    timestamp: r.timestamp,
    producerId: r.producerId,
    producerEpoch: r.producerEpoch,
    sequence: r.sequence,
    transactional: r.transactional,
    control: r.control,
    txnOutcome: r.txnOutcome,
  }
}

export function partitionFileName(topic: string, partition: number): string {
  return `${tpKey(topic, partition)}.jsonl`
}

async function dumpPartition(
  inspector: LogInspector,
  tp: TopicPartition,
  offsets: PartitionOffsets,
  file: string,
): Promise<void> {
  const out = createWriteStream(file, { encoding: 'utf8' })
  await forEachPage(inspector, tp, offsets.logStartOffset, offsets.highWatermark, DEFAULT_PAGE_SIZE, async (page) => {
    if (!out.write(page.map((r) => `${JSON.stringify(toDumpLine(r))}\n`).join(''))) await once(out, 'drain')
  })
  out.end()
  await once(out, 'finish')
}

/** Writes every partition of every topic, the offsets of each, and the group's committed offsets into dir. */
export async function dumpRun(inspector: LogInspector, dir: string, groupId: string): Promise<void> {
  await mkdir(dir, { recursive: true })
  const topics: TopicsFile = { topics: [] }
  for (const { topic, partitions } of await inspector.topics()) {
    const entry: TopicsFile['topics'][number] = { topic, partitions: [] }
    for (let partition = 0; partition < partitions; partition++) {
      const tp = { topic, partition }
      const offsets = await inspector.offsets(tp)
      entry.partitions.push({ partition, ...offsets })
      await dumpPartition(inspector, tp, offsets, join(dir, partitionFileName(topic, partition)))
    }
    topics.topics.push(entry)
  }
  const committed: CommittedOffsetsFile = { groupId, offsets: await inspector.committedOffsets(groupId) }
  await writeFile(join(dir, TOPICS_FILE), `${JSON.stringify(topics, null, 2)}\n`)
  await writeFile(join(dir, COMMITTED_OFFSETS_FILE), `${JSON.stringify(committed, null, 2)}\n`)
  await writeFile(join(dir, 'README.txt'), README)
}

// ---- reading a dump ---------------------------------------------------------------------------

export class DumpFormatError extends Error {
  readonly name = 'DumpFormatError'
}

const CONTROL_TYPES: readonly (ControlType | null)[] = ['COMMIT', 'ABORT', null]
const TXN_OUTCOMES: readonly (TxnOutcome | null)[] = ['committed', 'aborted', 'pending', null]

function isTextOrNull(v: unknown): v is string | null {
  return v === null || typeof v === 'string'
}

function isHeaders(v: unknown): v is Headers | null {
  return (
    v === null ||
    (typeof v === 'object' && !Array.isArray(v) && Object.values(v as object).every((h) => typeof h === 'string'))
  )
}

/** Parses one line of a partition file; `where` names the file and line in the error when it is not one. */
export function parseDumpLine(text: string, tp: TopicPartition, where: string): StoredRecordView {
  let v: DumpLine
  try {
    v = JSON.parse(text) as DumpLine
  } catch {
    throw new DumpFormatError(`${where}: not JSON`)
  }
  const valid =
    typeof v === 'object' &&
    v !== null &&
    Number.isSafeInteger(v.offset) &&
    v.offset >= 0 &&
    isTextOrNull(v.key) &&
    isTextOrNull(v.value) &&
    isHeaders(v.headers ?? null) &&
    typeof v.timestamp === 'number' &&
    Number.isSafeInteger(v.producerId) &&
    Number.isSafeInteger(v.producerEpoch) &&
    Number.isSafeInteger(v.sequence) &&
    typeof v.transactional === 'boolean' &&
    CONTROL_TYPES.includes(v.control) &&
    TXN_OUTCOMES.includes(v.txnOutcome)
  if (!valid) throw new DumpFormatError(`${where}: not a dumped record (see README.txt for the fields)`)
  return {
    topic: tp.topic,
    partition: tp.partition,
    offset: v.offset,
    key: v.key,
    value: v.value,
    headers: v.headers ?? undefined,
    timestamp: v.timestamp,
    producerId: v.producerId,
    producerEpoch: v.producerEpoch,
    sequence: v.sequence,
    transactional: v.transactional,
    control: v.control,
    txnOutcome: v.txnOutcome,
  }
}

/**
 * A partition's offsets from its records alone, for a dump without topics.json: the log starts at
 * the first stored offset, the high watermark follows the last, and the last stable offset is the
 * first offset of the earliest transaction no marker has closed.
 */
export class OffsetsFromRecords {
  private first: number | null = null
  private last = -1
  private readonly openTxnStart = new Map<number, number>()

  add(r: Pick<StoredRecordView, 'offset' | 'producerId' | 'transactional' | 'control'>): void {
    if (this.first === null) this.first = r.offset
    this.last = r.offset
    if (r.control !== null) this.openTxnStart.delete(r.producerId)
    else if (r.transactional && !this.openTxnStart.has(r.producerId)) this.openTxnStart.set(r.producerId, r.offset)
  }

  result(): PartitionOffsets {
    const highWatermark = this.last + 1
    return {
      logStartOffset: this.first ?? 0,
      lastStableOffset: Math.min(highWatermark, ...this.openTxnStart.values()),
      highWatermark,
    }
  }
}

/** Reads a partition file forward; the inspector reopens it only when asked for an earlier offset. */
class PartitionCursor {
  private readonly rl: Interface
  private readonly lines: AsyncIterator<string>
  private peeked: StoredRecordView | null = null
  private lineNo = 0
  /** Records below this offset have been consumed. */
  position = 0

  constructor(
    readonly tp: TopicPartition,
    private readonly file: string,
  ) {
    this.rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity })
    this.lines = this.rl[Symbol.asyncIterator]()
  }

  async next(): Promise<StoredRecordView | null> {
    if (this.peeked) {
      const r = this.peeked
      this.peeked = null
      return r
    }
    for (;;) {
      const line = await this.lines.next()
      if (line.done) return null
      this.lineNo++
      if (line.value.trim().length === 0) continue
      return parseDumpLine(line.value, this.tp, `${this.file}:${this.lineNo}`)
    }
  }

  consumed(r: StoredRecordView): void {
    this.position = r.offset + 1
  }

  unread(r: StoredRecordView): void {
    this.peeked = r
    this.position = r.offset
  }

  close(): void {
    this.rl.close()
  }
}

async function readJson<T>(file: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw new DumpFormatError(`${file}: cannot be read as JSON`, { cause: e })
  }
}

const PARTITION_FILE = /^(.+)-(\d+)\.jsonl$/

/** A LogInspector over a dump directory. Reads stream from the files; call close() when done. */
export class DumpInspector implements LogInspector {
  private partitions: Promise<Map<string, PartitionOffsets[]>> | null = null
  private cursor: PartitionCursor | null = null

  constructor(readonly dir: string) {}

  private loadPartitions(): Promise<Map<string, PartitionOffsets[]>> {
    this.partitions ??= this.readTopicsFile().then((fromFile) => fromFile ?? this.deriveFromRecords())
    return this.partitions
  }

  private async readTopicsFile(): Promise<Map<string, PartitionOffsets[]> | null> {
    const file = await readJson<TopicsFile>(join(this.dir, TOPICS_FILE))
    if (!file) return null
    return new Map(
      file.topics.map((t) => [
        t.topic,
        [...t.partitions]
          .sort((a, b) => a.partition - b.partition)
          .map(({ logStartOffset, lastStableOffset, highWatermark }) => ({
            logStartOffset,
            lastStableOffset,
            highWatermark,
          })),
      ]),
    )
  }

  private async deriveFromRecords(): Promise<Map<string, PartitionOffsets[]>> {
    const counts = new Map<string, number>()
    const names = new Set(await readdir(this.dir))
    for (const name of names) {
      const m = PARTITION_FILE.exec(name)
      if (m) counts.set(m[1]!, Math.max(counts.get(m[1]!) ?? 0, Number(m[2]) + 1))
    }
    const out = new Map<string, PartitionOffsets[]>()
    for (const [topic, n] of counts) {
      const offsets: PartitionOffsets[] = []
      for (let partition = 0; partition < n; partition++)
        offsets.push(await this.scanOffsets({ topic, partition }, names))
      out.set(topic, offsets)
    }
    return out
  }

  private async scanOffsets(tp: TopicPartition, names: ReadonlySet<string>): Promise<PartitionOffsets> {
    const tracker = new OffsetsFromRecords()
    const name = partitionFileName(tp.topic, tp.partition)
    if (!names.has(name)) return tracker.result()
    const cursor = new PartitionCursor(tp, join(this.dir, name))
    try {
      for (let r = await cursor.next(); r; r = await cursor.next()) tracker.add(r)
    } finally {
      cursor.close()
    }
    return tracker.result()
  }

  async topics(): Promise<{ topic: string; partitions: number }[]> {
    return [...(await this.loadPartitions())].map(([topic, p]) => ({ topic, partitions: p.length }))
  }

  async offsets(tp: TopicPartition): Promise<PartitionOffsets> {
    const o = (await this.loadPartitions()).get(tp.topic)?.[tp.partition]
    if (!o) throw new DumpFormatError(`the dump has no partition ${tpKey(tp.topic, tp.partition)}`)
    return { ...o }
  }

  async readRaw(tp: TopicPartition, from: number, to: number, maxRecords: number): Promise<StoredRecordView[]> {
    await this.offsets(tp)
    const cursor = this.cursorAt(tp, from)
    const out: StoredRecordView[] = []
    while (out.length < maxRecords) {
      const r = await cursor.next()
      if (!r) break
      if (r.offset >= to) {
        cursor.unread(r)
        break
      }
      cursor.consumed(r)
      if (r.offset >= from) out.push(r)
    }
    return out
  }

  /** One open file at a time: the validator and the dump read partition after partition. */
  private cursorAt(tp: TopicPartition, from: number): PartitionCursor {
    const c = this.cursor
    if (c && c.tp.topic === tp.topic && c.tp.partition === tp.partition && c.position <= from) return c
    c?.close()
    this.cursor = new PartitionCursor(tp, join(this.dir, partitionFileName(tp.topic, tp.partition)))
    return this.cursor
  }

  async committedOffsets(groupId: string): Promise<OffsetToCommit[]> {
    const file = await readJson<CommittedOffsetsFile>(join(this.dir, COMMITTED_OFFSETS_FILE))
    return file && file.groupId === groupId ? file.offsets.map((o) => ({ ...o })) : []
  }

  /** The group whose committed offsets the dump holds. */
  async groupId(): Promise<string | null> {
    return (await readJson<CommittedOffsetsFile>(join(this.dir, COMMITTED_OFFSETS_FILE)))?.groupId ?? null
  }

  close(): void {
    this.cursor?.close()
    this.cursor = null
  }
}

/**
 * Validates a dump directory. The group defaults to the one in committed-offsets.json, the topics
 * to eoscope's defaults (the changelog named after the group, as application.id = group.id).
 */
export async function validateDump(dir: string, opts: Partial<ValidateOptions> = {}): Promise<ValidationReport> {
  const inspector = new DumpInspector(dir)
  try {
    const groupId = opts.groupId ?? (await inspector.groupId())
    if (groupId === null)
      throw new DumpFormatError(`${join(dir, COMMITTED_OFFSETS_FILE)} is missing: name the group to validate`)
    return await validateRun(inspector, {
      inputTopic: DEFAULT_INPUT_TOPIC,
      outputTopic: DEFAULT_OUTPUT_TOPIC,
      changelogTopic: changelogTopic(groupId),
      ...opts,
      groupId,
    })
  } finally {
    inspector.close()
  }
}
