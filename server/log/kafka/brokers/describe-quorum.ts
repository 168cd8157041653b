// DescribeQuorum (API 55, v0, flexible), which kafkajs 2.2.4 lacks: any broker forwards it to the
// KRaft controllers; the answer names the metadata quorum's leader, the active controller.
// (Metadata's controller id is no help on KRaft: brokers answer it with a random live broker.)

import {
  Encoder,
  firstError,
  flexibleBody,
  flexibleResponse,
  type ProtocolRequest,
  readItems,
} from '../raw-protocol.ts'

export const API_DESCRIBE_QUORUM = 55

export interface DescribeQuorumResponse {
  errorCode: number
  partitions: { partitionIndex: number; errorCode: number; leaderId: number; leaderEpoch: number }[]
}

export function describeQuorum(): ProtocolRequest<DescribeQuorumResponse> {
  return {
    request: {
      apiKey: API_DESCRIBE_QUORUM,
      apiVersion: 0,
      apiName: 'DescribeQuorum',
      encode: async () => {
        const partition = new Encoder().writeInt32(0).writeUVarInt(0)
        const topic = new Encoder()
          .writeUVarIntString('__cluster_metadata')
          .writeUVarIntArray([partition], 'object')
          .writeUVarInt(0)
        return flexibleBody().writeUVarIntArray([topic], 'object').writeUVarInt(0)
      },
    },
    response: {
      decode: async (payload) => {
        const d = flexibleResponse(payload)
        const errorCode = d.readInt16()
        const replica = () =>
          readItems(d, (x) => {
            x.readInt32()
            return x.readInt64()
          })
        const topics = readItems(d, (t) => {
          t.readUVarIntString()
          return readItems(t, (p) => {
            const out = {
              partitionIndex: p.readInt32(),
              errorCode: p.readInt16(),
              leaderId: p.readInt32(),
              leaderEpoch: p.readInt32(),
            }
            p.readInt64() // high watermark
            replica() // current voters
            replica() // observers
            return out
          })
        })
        return { errorCode, partitions: topics.flat() }
      },
      parse: async (data) => {
        const error = firstError([data.errorCode, ...data.partitions.map((p) => p.errorCode)])
        if (error) throw error
        return data
      },
    },
  }
}
