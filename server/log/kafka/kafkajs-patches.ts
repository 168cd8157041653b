// kafkajs 2.2.4 (the last release) is the client eoscope is built on, and
// patches/kafkajs+2.2.4.patch (applied by patch-package at npm install) gives it two things.
//
// An API eoscope needs and kafkajs lacks, typed in the patched types/index.d.ts: TxnOffsetCommit v3
// (KIP-447: a transaction's offsets carry the consumer group member's generation, so a zombie's
// are refused) through Transaction.sendOffsets's consumerGroupMetadata; the generation a join made
// in GROUP_JOIN's payload; a producer's identity() (its producer id and epoch); a public
// Kafka.createCluster and Broker.sendRequest, and the protocol's encoder, decoder and errors
// (`protocol`), for group-less reads and the requests kafkajs does not know (OffsetFetch v7,
// KIP-664, DescribeQuorum).
//
// And mends, wire format and decoded messages unchanged. On the produce path: grouping a call's
// messages by partition (quadratic in the messages), a temporary array and Buffer per varint, a
// Long per record timestamp delta, a zero-filled 512-byte buffer per record, each string key and
// value measured twice, and a string sort of the batch's timestamps. On the fetch path: a slice and
// a Decoder per record, and Longs parsed from strings for every record's offset and timestamp and
// for the batch's offset filter. On the transactional path: a FindCoordinator round trip before
// every transactional request, and one AddPartitionsToTxn per partition, each waiting for the one
// before. A negative timer delay per request queue, which Node 24 warns about (kafkajs issue
// #1751). And two for a broker that goes away: a consumer committed its offsets to the broker its
// group's coordinator had been on ("Broker N not found in the cached metadata") instead of looking
// the coordinator up again, and a connection to a dead broker, disconnected at each retry, added a
// listener to its socket each time (MaxListenersExceededWarning).
//
// Each patched file carries a marker line. This module is the one place outside the patch's own
// tests that reads kafkajs's files by path: it tells whether the installed kafkajs has them all,
// and a client refuses to start without them (npm install --ignore-scripts skips the patch).

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

/** The kafkajs files the patch changes, as require() names them. */
export const PATCHED_KAFKAJS_FILES = [
  'kafkajs/src/producer/groupMessagesPerPartition.js',
  'kafkajs/src/protocol/encoder.js',
  'kafkajs/src/protocol/recordBatch/record/v0/index.js',
  'kafkajs/src/protocol/requests/produce/v3/request.js',
  'kafkajs/src/protocol/decoder.js',
  'kafkajs/src/protocol/recordBatch/v0/decoder.js',
  'kafkajs/src/protocol/recordBatch/record/v0/decoder.js',
  'kafkajs/src/consumer/batch.js',
  'kafkajs/src/protocol/recordBatch/crc32C/crc32C.js',
  'kafkajs/src/network/requestQueue/index.js',
  'kafkajs/src/producer/eosManager/index.js',
  'kafkajs/src/producer/index.js',
  'kafkajs/src/consumer/offsetManager/index.js',
  'kafkajs/src/network/connection.js',
  'kafkajs/index.js',
  'kafkajs/src/index.js',
  'kafkajs/src/broker/index.js',
  'kafkajs/src/consumer/consumerGroup.js',
  'kafkajs/src/protocol/requests/txnOffsetCommit/index.js',
  'kafkajs/src/protocol/requests/txnOffsetCommit/v3/request.js',
  'kafkajs/src/protocol/requests/txnOffsetCommit/v3/response.js',
  'kafkajs/types/index.d.ts',
] as const

/** The patch, from the project's root. */
export const KAFKAJS_PATCH = 'patches/kafkajs+2.2.4.patch'

/** The first line of every file the patch changes. */
export const PATCH_MARKER = `// eoscope patch (${KAFKAJS_PATCH})`

/** The patched files whose installed copy lacks the marker (none: the patch is applied). */
export function kafkajsPatchesMissing(): string[] {
  const require = createRequire(import.meta.url)
  return PATCHED_KAFKAJS_FILES.filter((name) => {
    try {
      return !readFileSync(require.resolve(name), 'utf8').startsWith(PATCH_MARKER)
    } catch {
      return true
    }
  })
}

/** What a client started without the patch is told (by requireKafkajsPatched). */
export class KafkajsNotPatchedError extends Error {
  readonly name = 'KafkajsNotPatchedError'
  constructor(readonly missing: readonly string[]) {
    super(
      `kafkajs is not patched (${missing.join(', ')}): eoscope needs the patch's API (TxnOffsetCommit v3 with ` +
        `the group member, the join's generation, the producer's id and epoch). Run \`npm install\` (its ` +
        `postinstall step applies ${KAFKAJS_PATCH}).`,
    )
  }
}

let checked = false

/** Throws KafkajsNotPatchedError when the installed kafkajs lacks the patch (checked once per process). */
export function requireKafkajsPatched(missing: () => string[] = kafkajsPatchesMissing): void {
  if (checked) return
  const absent = missing()
  if (absent.length > 0) throw new KafkajsNotPatchedError(absent)
  checked = true
}
