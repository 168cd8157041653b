// OffsetFetch v7 with require_stable, one of the two requests exactly_once_v2 needs (KIP-447), which
// kafkajs 2.2.4 does not send, written with kafkajs's own encoder and decoder so its connections
// carry it: a new owner waits (UNSTABLE_OFFSET_COMMIT) while another member's open transaction
// holds offsets for its partitions, instead of starting from older ones and redoing what that
// transaction is about to commit. A flexible version (KIP-482): compact strings and arrays and
// tagged fields, framed by raw-protocol.ts's flexibleBody and flexibleResponse. (The other,
// TxnOffsetCommit v3 with the member's generation, is in the kafkajs patch: its producers'
// sendOffsets takes the consumer group metadata.)

import {
  Encoder,
  firstError,
  flexibleBody,
  flexibleResponse,
  readItems,
  writeInt32s,
  type KafkajsDecoder,
  type ProtocolRequest,
} from '../raw-protocol.ts'

export type { ProtocolRequest } from '../raw-protocol.ts'

export const API_OFFSET_FETCH = 9

export interface OffsetFetchResponse {
  throttleTime: number
  errorCode: number
  topics: { topic: string; partitions: { partition: number; offset: string; errorCode: number }[] }[]
}

/**
 * Whether an OffsetFetch waits out offsets an open transaction holds (require_stable) or takes the last stable ones.
 */
export type OffsetStability = 'require-stable' | 'last-stable'

/**
 * OffsetFetch v7; with require-stable the coordinator answers UNSTABLE_OFFSET_COMMIT
 * (retriable) while a transaction holds offsets.
 */
export function offsetFetchV7(
  groupId: string,
  topics: { topic: string; partitions: number[] }[],
  stability: OffsetStability,
): ProtocolRequest<OffsetFetchResponse> {
  return {
    request: {
      apiKey: API_OFFSET_FETCH,
      apiVersion: 7,
      apiName: 'OffsetFetch',
      encode: async () =>
        flexibleBody()
          .writeUVarIntString(groupId)
          .writeUVarIntArray(
            topics.map((t) => writeInt32s(new Encoder().writeUVarIntString(t.topic), t.partitions).writeUVarInt(0)),
            'object',
          )
          .writeBoolean(stability === 'require-stable')
          .writeUVarInt(0),
    },
    response: {
      decode: async (payload) => {
        const d = flexibleResponse(payload)
        const throttleTime = d.readInt32()
        const topics = readTopics(d, (p) => {
          const partition = p.readInt32()
          const offset = p.readInt64().toString()
          p.readInt32() // committed leader epoch
          p.readUVarIntString() // metadata
          return { partition, offset, errorCode: p.readInt16() }
        })
        const errorCode = d.readInt16()
        d.readTaggedFields()
        return { throttleTime, errorCode, topics }
      },
      parse: async (data) => {
        const error = firstError([data.errorCode, ...data.topics.flatMap((t) => t.partitions.map((p) => p.errorCode))])
        if (error) throw error
        return data
      },
    },
  }
}

/** A response's compact array of topics, each with its compact array of partitions. */
function readTopics<P>(
  d: KafkajsDecoder,
  readPartition: (p: KafkajsDecoder) => P,
): { topic: string; partitions: P[] }[] {
  return readItems(d, (t) => ({ topic: t.readUVarIntString() ?? '', partitions: readItems(t, readPartition) }))
}
