// Records as kafkajs decodes them, turned into the log seam's shapes; the read_committed filter
// over a raw fetch (the consumer's aborted-transaction bookkeeping, as the Java client does it).

import type { ConsumedRecord, ControlType, Headers, ProduceRecord, StoredRecordView, TopicPartition } from '../types.ts'
import type { RawFetchedRecord } from './kafka-client.ts'

type KafkajsHeaders = Record<string, Buffer | string | (Buffer | string)[] | undefined> | undefined

export function toHeaders(headers: KafkajsHeaders): Headers | undefined {
  if (!headers) return undefined
  const out: Headers = {}
  let any = false
  // for-in, not Object.entries: no array per record for the empty headers most records have.
  for (const k in headers) {
    const v = headers[k]
    if (v === undefined) continue
    const first = Array.isArray(v) ? v[0] : v
    if (first === undefined) continue
    out[k] = first.toString()
    any = true
  }
  return any ? out : undefined
}

function text(b: Buffer | string | null | undefined): string | null {
  return b === null || b === undefined ? null : b.toString()
}

export interface KafkajsMessage {
  offset: string
  timestamp: string
  key: Buffer | null
  value: Buffer | null
  headers?: KafkajsHeaders
}

export function toConsumedRecord(tp: TopicPartition, m: KafkajsMessage): ConsumedRecord {
  return {
    topic: tp.topic,
    partition: tp.partition,
    offset: Number(m.offset),
    key: text(m.key),
    value: text(m.value),
    headers: toHeaders(m.headers),
    timestamp: Number(m.timestamp),
  }
}

/**
 * A kafkajs message for a ProduceRecord: the partition is always explicit. The timestamp stays a
 * number (kafkajs types it as a string): the patched Produce request reads it with Number(), so a
 * string would only be formatted here to be parsed again there, three times a record.
 */
export function toKafkajsMessage(r: ProduceRecord) {
  return {
    partition: r.partition,
    key: r.key,
    value: r.value,
    headers: r.headers,
    timestamp: r.timestamp,
  }
}

/** A control record's key: version (int16), type (int16: 0 ABORT, 1 COMMIT). */
export function controlType(r: RawFetchedRecord): ControlType | null {
  if (!r.isControlRecord) return null
  if (!r.key || r.key.length < 4) return null
  const type = r.key.readInt16BE(2)
  return type === 1 ? 'COMMIT' : type === 0 ? 'ABORT' : null
}

/**
 * Data records of a raw fetch that a consumer sees under its isolation level: control records
 * dropped, and under read_committed the records of aborted transactions skipped, using the
 * fetch response's aborted-transaction list (producer id, first offset) and the ABORT markers.
 */
export function visibleRecords(
  records: RawFetchedRecord[],
  aborted: { producerId: string; firstOffset: number }[] | null,
): RawFetchedRecord[] {
  if (aborted === null) return records.filter((r) => !r.isControlRecord)
  const pending = [...aborted].sort((a, b) => a.firstOffset - b.firstOffset)
  const abortedProducers = new Set<string>()
  const out: RawFetchedRecord[] = []
  for (const r of records) {
    const offset = Number(r.offset)
    while (pending.length > 0 && pending[0]!.firstOffset <= offset) abortedProducers.add(pending.shift()!.producerId)
    const pid = r.batchContext.producerId
    if (r.isControlRecord) {
      if (controlType(r) === 'ABORT') abortedProducers.delete(pid)
      continue
    }
    if (r.batchContext.inTransaction && abortedProducers.has(pid)) continue
    out.push(r)
  }
  return out
}

export function toStoredView(
  tp: TopicPartition,
  r: RawFetchedRecord,
  txnOutcome: StoredRecordView['txnOutcome'],
): StoredRecordView {
  const offset = Number(r.offset)
  const b = r.batchContext
  const control = controlType(r)
  return {
    topic: tp.topic,
    partition: tp.partition,
    offset,
    key: control ? null : text(r.key),
    value: control ? null : text(r.value),
    headers: control ? undefined : toHeaders(r.headers),
    timestamp: Number(r.timestamp),
    producerId: Number(b.producerId),
    producerEpoch: b.producerEpoch,
    sequence: b.firstSequence < 0 ? -1 : b.firstSequence + (offset - Number(b.firstOffset)),
    transactional: b.inTransaction,
    control,
    txnOutcome,
  }
}
