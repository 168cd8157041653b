// kafkajs 2.2.4 (the last release) spends most of a client's CPU in a few hot spots. On the
// produce path: grouping a call's messages by partition (quadratic in the messages), a temporary
// array and Buffer per varint, a Long per record timestamp delta, a zero-filled 512-byte buffer
// per record, each string key and value measured twice, and a string sort of the batch's
// timestamps. On the fetch path: a slice and a Decoder per record, and Longs parsed from strings
// for every record's offset and timestamp and for the batch's offset filter. On the transactional
// path: a FindCoordinator round trip before every transactional request, and one
// AddPartitionsToTxn per partition, each waiting for the one before. And a negative timer delay
// per request queue, which Node 24 warns about (kafkajs issue #1751). And two for a broker that
// goes away: a consumer committed its offsets to the broker its group's coordinator had been on
// ("Broker N not found in the cached metadata") instead of looking the coordinator up again, and a
// connection to a dead broker, disconnected at each retry, added a listener to its socket each
// time (MaxListenersExceededWarning). patches/kafkajs+2.2.4.patch
// mends them (applied by patch-package at npm install), wire format and decoded messages
// unchanged. Each patched file carries a marker line; this module tells whether the installed
// kafkajs has them all, so that an install without them (npm install --ignore-scripts) is said
// aloud rather than silently slower.

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

let warned = false

/** Says once per process, on the console, when the installed kafkajs is not patched. */
export function warnOnceIfKafkajsUnpatched(warn: (message: string) => void = console.error): void {
  if (warned) return
  warned = true
  const missing = kafkajsPatchesMissing()
  if (missing.length === 0) return
  warn(
    `[eoscope] kafkajs is not patched (${missing.join(', ')}): its producers then spend several times the CPU ` +
      `per record (bench:kafka's job ran at about a third of the patched throughput). Run \`npm install\` (its ` +
      `postinstall step applies ${KAFKAJS_PATCH}).`,
  )
}
