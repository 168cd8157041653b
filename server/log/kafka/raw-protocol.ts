// Kafka requests kafkajs 2.2.4 does not send (KIP-447's, KIP-664's), written with kafkajs's own
// encoder and decoder and sent over its broker connections. Flexible versions (KIP-482) use a
// request header v2, which is kafkajs's header v1 followed by an empty tagged-field section: a
// request body here starts with that byte (`flexibleBody`). A flexible response's header v1 ends
// with tagged fields too: `flexibleResponse` reads them before the body.

import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/** The parts of kafkajs's Encoder these requests use. */
export interface KafkajsEncoder {
  writeInt16(n: number): KafkajsEncoder
  writeInt32(n: number): KafkajsEncoder
  writeInt64(n: number | string): KafkajsEncoder
  writeBoolean(b: boolean): KafkajsEncoder
  writeUVarInt(n: number): KafkajsEncoder
  writeUVarIntString(s: string | null): KafkajsEncoder
  writeUVarIntArray(a: KafkajsEncoder[] | null, type?: 'object'): KafkajsEncoder
  buffer: Buffer
}
/** The parts of kafkajs's Decoder these responses use. */
export interface KafkajsDecoder {
  readInt16(): number
  readInt32(): number
  readInt64(): { toString(): string }
  readBoolean(): boolean
  readUVarInt(): number
  readUVarIntString(): string | null
  readUVarIntArray<T>(reader: (d: KafkajsDecoder) => T): T[] | null
  readTaggedFields(): unknown
}

export const Encoder = require('kafkajs/src/protocol/encoder') as new () => KafkajsEncoder
export const Decoder = require('kafkajs/src/protocol/decoder') as new (b: Buffer) => KafkajsDecoder
export const { createErrorFromCode, failure } = require('kafkajs/src/protocol/error') as {
  createErrorFromCode(code: number): Error
  failure(code: number): boolean
}

/** A request as kafkajs's Broker sends it: the request to encode and the response to decode. */
export interface ProtocolRequest<R> {
  request: { apiKey: number; apiVersion: number; apiName: string; encode(): Promise<KafkajsEncoder> }
  response: { decode(payload: Buffer): Promise<R>; parse(data: R): Promise<R> }
}

/** A flexible request's body, after the header's empty tagged-field section. */
export function flexibleBody(): KafkajsEncoder {
  return new Encoder().writeUVarInt(0)
}

/** A compact array of int32s. */
export function writeInt32s(e: KafkajsEncoder, values: readonly number[]): KafkajsEncoder {
  e.writeUVarInt(values.length + 1)
  for (const v of values) e.writeInt32(v)
  return e
}

/** A flexible response's decoder, past the response header's tagged fields. */
export function flexibleResponse(payload: Buffer): KafkajsDecoder {
  const d = new Decoder(payload)
  d.readTaggedFields()
  return d
}

/** A compact array read item by item, each item's tagged fields skipped after it. */
export function readItems<T>(d: KafkajsDecoder, read: (d: KafkajsDecoder) => T): T[] {
  return (
    d.readUVarIntArray((x) => {
      const item = read(x)
      x.readTaggedFields()
      return item
    }) ?? []
  )
}

/** The first failing error code as kafkajs's error, or null. */
export function firstError(codes: number[]): Error | null {
  const code = codes.find((c) => failure(c))
  return code === undefined ? null : createErrorFromCode(code)
}

type SendRequest = <R>(request: ProtocolRequest<R>) => Promise<R>

/** kafkajs's Broker sends a request through its private sendRequest method; found by its symbol's description. */
export function sender(broker: object): SendRequest {
  for (let proto: object | null = broker; proto !== null; proto = Object.getPrototypeOf(proto)) {
    const symbol = Object.getOwnPropertySymbols(proto).find((s) => s.description === 'private:Broker:sendRequest')
    if (symbol)
      return ((request: ProtocolRequest<unknown>) =>
        (broker as Record<symbol, (r: ProtocolRequest<unknown>) => Promise<unknown>>)[symbol]!.call(
          broker,
          request,
        )) as SendRequest
  }
  throw new Error('this kafkajs version has no private Broker sendRequest; eoscope pins kafkajs 2.2.4')
}
