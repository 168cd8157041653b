// The admin requests of KIP-664 (what `kafka-transactions.sh` sends), which kafkajs 2.2.4 lacks:
// ListTransactions (every broker, each coordinator of some transactional ids), DescribeTransactions
// (a transactional id's coordinator), DescribeProducers (a partition's leader) and WriteTxnMarkers
// (a partition's leader: the abort of a hanging transaction). All v0/v1 flexible versions.

import {
  Encoder,
  firstError,
  flexibleBody,
  flexibleResponse,
  type KafkajsDecoder,
  type ProtocolRequest,
  readItems,
  writeInt32s,
} from '../raw-protocol.ts'

export const API_WRITE_TXN_MARKERS = 27
export const API_DESCRIBE_PRODUCERS = 61
export const API_DESCRIBE_TRANSACTIONS = 65
export const API_LIST_TRANSACTIONS = 66

export interface TransactionListing {
  transactionalId: string
  producerId: number
  /**
   * The coordinator's state: Empty, Ongoing, PrepareCommit, PrepareAbort,
   * CompleteCommit, CompleteAbort, Dead, PrepareEpochFence.
   */
  state: string
}

export interface ListTransactionsResponse {
  errorCode: number
  transactions: TransactionListing[]
}

export function listTransactions(): ProtocolRequest<ListTransactionsResponse> {
  return {
    request: {
      apiKey: API_LIST_TRANSACTIONS,
      apiVersion: 0,
      apiName: 'ListTransactions',
      encode: async () => flexibleBody().writeUVarIntArray([], 'object').writeUVarInt(1).writeUVarInt(0),
    },
    response: {
      decode: async (payload) => {
        const d = flexibleResponse(payload)
        d.readInt32() // throttle
        const errorCode = d.readInt16()
        d.readUVarIntArray((x) => x.readUVarIntString()) // unknown state filters
        const transactions = readItems(d, (x) => ({
          transactionalId: x.readUVarIntString() ?? '',
          producerId: Number(x.readInt64().toString()),
          state: x.readUVarIntString() ?? '',
        }))
        return { errorCode, transactions }
      },
      parse: async (data) => {
        const error = firstError([data.errorCode])
        if (error) throw error
        return data
      },
    },
  }
}

export interface TransactionDescription {
  errorCode: number
  transactionalId: string
  state: string
  timeoutMs: number
  /** -1 when no transaction is open. */
  startTimeMs: number
  producerId: number
  epoch: number
  partitions: { topic: string; partition: number }[]
}

export function describeTransactions(transactionalIds: string[]): ProtocolRequest<TransactionDescription[]> {
  return {
    request: {
      apiKey: API_DESCRIBE_TRANSACTIONS,
      apiVersion: 0,
      apiName: 'DescribeTransactions',
      encode: async () => {
        const e = flexibleBody()
        e.writeUVarInt(transactionalIds.length + 1)
        for (const id of transactionalIds) e.writeUVarIntString(id)
        return e.writeUVarInt(0)
      },
    },
    response: {
      decode: async (payload) => {
        const d = flexibleResponse(payload)
        d.readInt32() // throttle
        return readItems(d, (x: KafkajsDecoder) => {
          const errorCode = x.readInt16()
          const transactionalId = x.readUVarIntString() ?? ''
          const state = x.readUVarIntString() ?? ''
          const timeoutMs = x.readInt32()
          const startTimeMs = Number(x.readInt64().toString())
          const producerId = Number(x.readInt64().toString())
          const epoch = x.readInt16()
          const partitions = readItems(x, (t) => {
            const topic = t.readUVarIntString() ?? ''
            return (t.readUVarIntArray((p) => p.readInt32()) ?? []).map((partition) => ({ topic, partition }))
          }).flat()
          return { errorCode, transactionalId, state, timeoutMs, startTimeMs, producerId, epoch, partitions }
        })
      },
      // Per-id errors (TRANSACTIONAL_ID_NOT_FOUND, NOT_COORDINATOR) stay in the result for the caller.
      parse: async (data) => data,
    },
  }
}

export interface ActiveProducer {
  topic: string
  partition: number
  producerId: number
  epoch: number
  lastSequence: number
  lastTimestampMs: number
  coordinatorEpoch: number
  /** First offset of the producer's open transaction on this partition; -1: none open. */
  currentTxnStartOffset: number
}

export function describeProducers(
  topics: { topic: string; partitions: number[] }[],
): ProtocolRequest<{ errorCode: number; producers: ActiveProducer[] }[]> {
  return {
    request: {
      apiKey: API_DESCRIBE_PRODUCERS,
      apiVersion: 0,
      apiName: 'DescribeProducers',
      encode: async () =>
        flexibleBody()
          .writeUVarIntArray(
            topics.map((t) => writeInt32s(new Encoder().writeUVarIntString(t.topic), t.partitions).writeUVarInt(0)),
            'object',
          )
          .writeUVarInt(0),
    },
    response: {
      decode: async (payload) => {
        const d = flexibleResponse(payload)
        d.readInt32() // throttle
        return readItems(d, (t) => {
          const topic = t.readUVarIntString() ?? ''
          return readItems(t, (p) => {
            const partition = p.readInt32()
            const errorCode = p.readInt16()
            p.readUVarIntString() // error message
            const producers = readItems(p, (x) => ({
              topic,
              partition,
              producerId: Number(x.readInt64().toString()),
              epoch: x.readInt32(),
              lastSequence: x.readInt32(),
              lastTimestampMs: Number(x.readInt64().toString()),
              coordinatorEpoch: x.readInt32(),
              currentTxnStartOffset: Number(x.readInt64().toString()),
            }))
            return { errorCode, producers }
          })
        }).flat()
      },
      parse: async (data) => {
        const error = firstError(data.map((p) => p.errorCode))
        if (error) throw error
        return data
      },
    },
  }
}

/** An ABORT marker for one producer's open transaction on these partitions (all led by the broker it is sent to). */
export function writeAbortMarker(m: {
  producerId: number
  epoch: number
  coordinatorEpoch: number
  topics: { topic: string; partitions: number[] }[]
}): ProtocolRequest<{ errorCode: number }[]> {
  return {
    request: {
      apiKey: API_WRITE_TXN_MARKERS,
      apiVersion: 1,
      apiName: 'WriteTxnMarkers',
      encode: async () =>
        flexibleBody()
          .writeUVarIntArray(
            [
              new Encoder()
                .writeInt64(String(m.producerId))
                .writeInt16(m.epoch)
                .writeBoolean(false) // ABORT
                .writeUVarIntArray(
                  m.topics.map((t) =>
                    writeInt32s(new Encoder().writeUVarIntString(t.topic), t.partitions).writeUVarInt(0),
                  ),
                  'object',
                )
                .writeInt32(m.coordinatorEpoch)
                .writeUVarInt(0),
            ],
            'object',
          )
          .writeUVarInt(0),
    },
    response: {
      decode: async (payload) => {
        const d = flexibleResponse(payload)
        return readItems(d, (x) => {
          x.readInt64() // producer id
          return readItems(x, (t) => {
            t.readUVarIntString()
            return readItems(t, (p) => {
              p.readInt32()
              return { errorCode: p.readInt16() }
            })
          }).flat()
        }).flat()
      },
      parse: async (data) => {
        const error = firstError(data.map((p) => p.errorCode))
        if (error) throw error
        return data
      },
    },
  }
}
