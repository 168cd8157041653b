// The engine's essential per-record work with nothing around it: no log, no tasks, no
// transactions, no telemetry. For each input record: parse its value, look up the key's
// aggregate, update count/sum/min/max, store it, build the output and changelog records and
// serialise the output value: JSON text (the same functions the engine's StreamTask calls), then
// its UTF-8 bytes, as a Kafka serialiser hands the producer bytes (into one reused buffer: the
// serialiser's work without an allocation). Before the bytes step the loop stopped at the text,
// then a template literal's lazy tree of parts that nothing read and V8 never laid out: the
// serialisation was never done, and the loop ran twice as fast as one that does it. Its rate is
// what this machine can do at most for this topology on one core; engine figures are reported as
// a ratio to it, measured in the same process and minute, so a slow machine and a slow engine
// can be told apart.

import { performance } from 'node:perf_hooks'
import { applyToAggregate, type Aggregate, encodeOutputValue, parseInputValue } from '../lib/records.ts'
import { SeededRandom } from '../server/log/time.ts'

export interface BareLoopResult {
  /** Records per second of each pass. */
  passes: number[]
  /** The best pass: the machine's limit for this work, as the engine figures are compared to it. */
  bestPerSec: number
}

/** The serialiser's reused output buffer: values are written back to back and it starts over when full. */
const SCRATCH_BYTES = 1 << 16

interface BareRecord {
  topic: string
  partition: number
  key: string
  value: string
  timestamp: number
}

/** The input of one pass: keys and values drawn like the load generator's (100 keys, values 0-999). */
export function bareLoopInput(records: number, keys: number, seed: number): { keyOf: string[]; valueTextOf: string[] } {
  const random = new SeededRandom(seed)
  const names = Array.from({ length: keys }, (_, i) => `k${String(i).padStart(4, '0')}`)
  const keyOf = new Array<string>(records)
  const valueTextOf = new Array<string>(records)
  for (let i = 0; i < records; i++) {
    keyOf[i] = names[random.int(0, keys)]!
    valueTextOf[i] = String(random.int(0, 1000))
  }
  return { keyOf, valueTextOf }
}

/**
 * One pass over the input: the records built and the bytes the output values serialised to (also
 * what keeps the work from being optimised away).
 */
export function bareLoopPass(
  keyOf: readonly string[],
  valueTextOf: readonly string[],
  partitions: number,
): { records: number; bytes: number } {
  const stores = Array.from({ length: partitions }, () => new Map<string, Aggregate>())
  const scratch = Buffer.allocUnsafe(SCRATCH_BYTES)
  let pending: BareRecord[] = []
  let records = 0
  let bytes = 0
  let at = 0
  for (let i = 0; i < keyOf.length; i++) {
    const key = keyOf[i]!
    const p = i % partitions
    const v = parseInputValue(valueTextOf[i]!)
    if (v === null) continue
    const store = stores[p]!
    const agg = applyToAggregate(store.get(key), v)
    store.set(key, agg)
    const value = encodeOutputValue(key, agg, { partition: p, offset: i })
    if (at + value.length * 3 > SCRATCH_BYTES) at = 0
    const written = scratch.write(value, at)
    at += written
    bytes += written
    pending.push({ topic: 'output', partition: p, key, value, timestamp: i })
    pending.push({ topic: 'changelog', partition: p, key, value, timestamp: i })
    if (pending.length >= 2_000) {
      records += pending.length
      pending = []
    }
  }
  return { records: records + pending.length, bytes }
}

/**
 * After one unmeasured pass, runs `passes` passes of `records` records and keeps the best (the least disturbed:
 * while V8 has not yet grown its young generation, a pass pays about three times the scavenges, 150 ms against
 * 50 ms here, and runs at two thirds of the rate or less).
 */
export function measureBareLoop(records = 1_000_000, passes = 5, partitions = 6): BareLoopResult {
  const { keyOf, valueTextOf } = bareLoopInput(records, 100, 1)
  bareLoopPass(keyOf, valueTextOf, partitions) // warm-up, a whole unmeasured pass: JIT tiers and inline caches
  const rates: number[] = []
  for (let i = 0; i < passes; i++) {
    const t0 = performance.now()
    const n = bareLoopPass(keyOf, valueTextOf, partitions)
    const seconds = (performance.now() - t0) / 1000
    if (n.records !== records * 2 || n.bytes <= 0)
      throw new Error(`bare loop produced ${n.records} records and ${n.bytes} bytes for ${records} inputs`)
    rates.push(Math.round(records / seconds))
  }
  return { passes: rates, bestPerSec: Math.max(...rates) }
}
