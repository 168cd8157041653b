// Just enough of the Kafka wire protocol for a proxy that loses produce acks: size-prefixed
// frames, the request header (api key, version, correlation id), the Produce request's acks and
// record batch headers, the Produce response's base offsets, and the broker addresses in Metadata
// and FindCoordinator responses (rewritten so clients keep talking through the proxy). Only the
// non-flexible versions kafkajs 2.2.4 sends (Metadata v0-v6, FindCoordinator v0-v2, Produce v0-v7).

export const API_PRODUCE = 0
export const API_METADATA = 3
export const API_FIND_COORDINATOR = 10

/** Splits a byte stream into Kafka frames (int32 size, then that many bytes). */
export class FrameSplitter {
  private buffered: Buffer = Buffer.alloc(0)

  /** The complete frames (size prefix included) the chunk finishes. */
  push(chunk: Buffer): Buffer[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk])
    const frames: Buffer[] = []
    while (this.buffered.length >= 4) {
      const size = this.buffered.readInt32BE(0)
      if (size < 0) throw new Error(`malformed Kafka frame: negative size ${size}`)
      if (this.buffered.length < 4 + size) break
      frames.push(this.buffered.subarray(0, 4 + size))
      this.buffered = this.buffered.subarray(4 + size)
    }
    return frames
  }
}

export interface RequestHeader {
  apiKey: number
  apiVersion: number
  correlationId: number
  /** Offset in the frame where the request body starts. */
  bodyAt: number
}

/** A request frame's header (v1: api key, version, correlation id, nullable client id). */
export function requestHeader(frame: Buffer): RequestHeader | null {
  if (frame.length < 14) return null
  const clientIdLength = frame.readInt16BE(12)
  const bodyAt = 14 + Math.max(0, clientIdLength)
  if (bodyAt > frame.length) return null
  return { apiKey: frame.readInt16BE(4), apiVersion: frame.readInt16BE(6), correlationId: frame.readInt32BE(8), bodyAt }
}

export function responseCorrelationId(frame: Buffer): number | null {
  return frame.length >= 8 ? frame.readInt32BE(4) : null
}

class Reader {
  constructor(
    readonly buf: Buffer,
    public at: number,
  ) {}
  int16(): number {
    const v = this.buf.readInt16BE(this.at)
    this.at += 2
    return v
  }
  int32(): number {
    const v = this.buf.readInt32BE(this.at)
    this.at += 4
    return v
  }
  int64(): number {
    const v = Number(this.buf.readBigInt64BE(this.at))
    this.at += 8
    return v
  }
  /** A string or nullable string (int16 length, -1 for null). */
  string(): string | null {
    const n = this.int16()
    if (n < 0) return null
    const s = this.buf.toString('utf8', this.at, this.at + n)
    this.at += n
    return s
  }
  bytes(): Buffer | null {
    const n = this.int32()
    if (n < 0) return null
    const b = this.buf.subarray(this.at, this.at + n)
    this.at += n
    return b
  }
}

/** One record batch of a Produce request: where it goes and the producer's sequence number. */
export interface ProducedBatch {
  topic: string
  partition: number
  producerId: number
  epoch: number
  baseSequence: number
  count: number
}

export interface ProduceRequest {
  transactionalId: string | null
  acks: number
  batches: ProducedBatch[]
}

/** Record batch v2 header offsets (KIP-98): producer id, epoch, base sequence and record count. */
const BATCH_PRODUCER_ID_AT = 43
const BATCH_HEADER_BYTES = 61

function batchesOf(topic: string, partition: number, records: Buffer): ProducedBatch[] {
  const out: ProducedBatch[] = []
  for (let at = 0; at + BATCH_HEADER_BYTES <= records.length; ) {
    const batchLength = records.readInt32BE(at + 8)
    if (records.readInt8(at + 16) === 2) {
      out.push({
        topic,
        partition,
        producerId: Number(records.readBigInt64BE(at + BATCH_PRODUCER_ID_AT)),
        epoch: records.readInt16BE(at + BATCH_PRODUCER_ID_AT + 8),
        baseSequence: records.readInt32BE(at + BATCH_PRODUCER_ID_AT + 10),
        count: records.readInt32BE(at + BATCH_PRODUCER_ID_AT + 14),
      })
    }
    at += 12 + batchLength
  }
  return out
}

/** The acks and record batches of a Produce request body. */
export function parseProduceRequest(frame: Buffer, h: RequestHeader): ProduceRequest {
  const r = new Reader(frame, h.bodyAt)
  const transactionalId = h.apiVersion >= 3 ? r.string() : null
  const acks = r.int16()
  r.int32() // timeout
  const batches: ProducedBatch[] = []
  for (let t = r.int32(); t > 0; t--) {
    const topic = r.string() ?? ''
    for (let p = r.int32(); p > 0; p--) {
      const partition = r.int32()
      const records = r.bytes()
      if (records) batches.push(...batchesOf(topic, partition, records))
    }
  }
  return { transactionalId, acks, batches }
}

/** Base offset and error per topic-partition of a Produce response. */
export function parseProduceResponse(
  frame: Buffer,
  apiVersion: number,
): { topic: string; partition: number; errorCode: number; baseOffset: number }[] {
  const r = new Reader(frame, 8)
  const out: { topic: string; partition: number; errorCode: number; baseOffset: number }[] = []
  for (let t = r.int32(); t > 0; t--) {
    const topic = r.string() ?? ''
    for (let p = r.int32(); p > 0; p--) {
      const partition = r.int32()
      const errorCode = r.int16()
      const baseOffset = r.int64()
      if (apiVersion >= 2) r.int64() // log append time
      if (apiVersion >= 5) r.int64() // log start offset
      out.push({ topic, partition, errorCode, baseOffset })
    }
  }
  return out
}

export interface BrokerAddress {
  host: string
  port: number
}

/** Where a client should connect instead of a broker (the proxy's listener for it). */
export type AddressMap = (broker: BrokerAddress) => Promise<BrokerAddress>

function stringBytes(s: string): Buffer {
  const b = Buffer.from(s, 'utf8')
  const len = Buffer.alloc(2)
  len.writeInt16BE(b.length)
  return Buffer.concat([len, b])
}

function int32Bytes(n: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeInt32BE(n)
  return b
}

function framed(parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts)
  return Buffer.concat([int32Bytes(body.length), body])
}

/** A Metadata response (v0-v6) with every broker's host and port replaced by map's. */
export async function rewriteMetadataResponse(frame: Buffer, apiVersion: number, map: AddressMap): Promise<Buffer> {
  const r = new Reader(frame, 8)
  if (apiVersion >= 3) r.int32() // throttle time
  const parts: Buffer[] = [frame.subarray(4, r.at)]
  const brokers = r.int32()
  parts.push(int32Bytes(brokers))
  for (let i = 0; i < brokers; i++) {
    const nodeId = r.int32()
    const host = r.string() ?? ''
    const port = r.int32()
    const rackAt = r.at
    if (apiVersion >= 1) r.string()
    const to = await map({ host, port })
    parts.push(int32Bytes(nodeId), stringBytes(to.host), int32Bytes(to.port), frame.subarray(rackAt, r.at))
  }
  parts.push(frame.subarray(r.at))
  return framed(parts)
}

/** A FindCoordinator response (v0-v2) pointing at the proxy's listener for the coordinator. */
export async function rewriteFindCoordinatorResponse(
  frame: Buffer,
  apiVersion: number,
  map: AddressMap,
): Promise<Buffer> {
  const r = new Reader(frame, 8)
  if (apiVersion >= 1) r.int32() // throttle time
  const errorCode = r.int16()
  if (apiVersion >= 1) r.string() // error message
  const head = frame.subarray(4, r.at)
  const nodeId = r.int32()
  const host = r.string() ?? ''
  const port = r.int32()
  if (errorCode !== 0 || host === '') return frame
  const to = await map({ host, port })
  return framed([head, int32Bytes(nodeId), stringBytes(to.host), int32Bytes(to.port), frame.subarray(r.at)])
}
