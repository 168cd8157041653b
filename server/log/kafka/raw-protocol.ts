// Kafka requests kafkajs 2.2.4 does not send (KIP-447's OffsetFetch, KIP-664's), written with
// kafkajs's own encoder and decoder and sent over its broker connections (the patch exports both
// as `protocol` and gives Broker a public sendRequest). Flexible versions (KIP-482) use a
// request header v2, which is kafkajs's header v1 followed by an empty tagged-field section: a
// request body here starts with that byte (`flexibleBody`). A flexible response's header v1 ends
// with tagged fields too: `flexibleResponse` reads them before the body.

import kafkajs, { type Broker, type ProtocolDecoder, type ProtocolEncoder, type ProtocolRequest } from 'kafkajs'

export type { ProtocolRequest } from 'kafkajs'
/** The parts of kafkajs's Encoder these requests use (the patch exports and types it). */
export type KafkajsEncoder = ProtocolEncoder
/** The parts of kafkajs's Decoder these responses use. */
export type KafkajsDecoder = ProtocolDecoder

// kafkajs is CommonJS and its exports are not all found by name from ESM: read them off the module.
export const { Encoder, Decoder, createErrorFromCode, failure } = kafkajs.protocol

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

/** Sends requests kafkajs has no method for over one of its broker connections (the patch's sendRequest). */
export function sender(broker: Broker): SendRequest {
  return (request) => broker.sendRequest(request)
}
