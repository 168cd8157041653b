// kafkajs's internal encoders, typed as the patch's tests use them (kafkajs-patches.test.ts,
// kafkajs-produce-batch.test.ts): kafkajs exports none of them, so they are required by path.

import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

export interface KafkajsEncoder {
  writeVarLong(v: unknown): KafkajsEncoder
  writeVarInt(v: number): KafkajsEncoder
  writeInt32(v: number): KafkajsEncoder
  writeEncoder(e: KafkajsEncoder): KafkajsEncoder
  size(): number
  buffer: Buffer
}

export const Encoder = require('kafkajs/src/protocol/encoder.js') as {
  new (size?: number): KafkajsEncoder
  sizeOfVarLong(v: unknown): number
}
export const Long = require('kafkajs/src/utils/long.js') as {
  fromValue(v: number | string): unknown
  fromString(v: string): unknown
}
/** One record of a batch (kafkajs's Record v0). */
export const encodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as (
  o: Record<string, unknown>,
) => KafkajsEncoder
/** A record batch over encoded records (kafkajs's RecordBatch v0). */
export const encodeBatch = (
  require('kafkajs/src/protocol/recordBatch/v0/index.js') as {
    RecordBatch: (o: Record<string, unknown>) => Promise<KafkajsEncoder>
  }
).RecordBatch
