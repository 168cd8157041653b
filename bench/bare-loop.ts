// The engine's essential per-record work with nothing around it: no log, no tasks, no
// transactions, no telemetry. For each input record: parse its value, look up the key's
// aggregate, update count/sum/min/max, store it, build the output and changelog records and
// JSON-encode the output value (the same functions the engine's StreamTask calls). Its rate is
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

interface BareRecord {
  topic: string
  partition: number
  key: string
  value: string
  timestamp: number
}

/** The input of one pass: keys and values drawn like the load generator's (100 keys, values 0-999). */
function input(records: number, keys: number, seed: number): { keyOf: string[]; valueOf: string[] } {
  const random = new SeededRandom(seed)
  const names = Array.from({ length: keys }, (_, i) => `k${String(i).padStart(4, '0')}`)
  const keyOf = new Array<string>(records)
  const valueOf = new Array<string>(records)
  for (let i = 0; i < records; i++) {
    keyOf[i] = names[random.int(0, keys)]!
    valueOf[i] = String(random.int(0, 1000))
  }
  return { keyOf, valueOf }
}

/** One pass over the input; returns a checksum so the work cannot be optimised away. */
function pass(keyOf: string[], valueOf: string[], partitions: number): number {
  const stores = Array.from({ length: partitions }, () => new Map<string, Aggregate>())
  let pending: BareRecord[] = []
  let checksum = 0
  for (let i = 0; i < keyOf.length; i++) {
    const key = keyOf[i]!
    const p = i % partitions
    const v = parseInputValue(valueOf[i]!)
    if (v === null) continue
    const store = stores[p]!
    const agg = applyToAggregate(store.get(key), v)
    store.set(key, agg)
    const value = encodeOutputValue(key, agg, { partition: p, offset: i })
    pending.push({ topic: 'output', partition: p, key, value, timestamp: i })
    pending.push({ topic: 'changelog', partition: p, key, value, timestamp: i })
    if (pending.length >= 2_000) {
      checksum += pending.length
      pending = []
    }
  }
  return checksum + pending.length
}

/** After one unmeasured pass, runs `passes` passes of `records` records and keeps the best (the least disturbed: while V8 has not yet grown its young generation, a pass pays about three times the scavenges, 150 ms against 50 ms here, and runs at two thirds of the rate or less). */
export function measureBareLoop(records = 1_000_000, passes = 5, partitions = 6): BareLoopResult {
  const { keyOf, valueOf } = input(records, 100, 1)
  pass(keyOf, valueOf, partitions) // warm-up, a whole unmeasured pass: JIT tiers and inline caches
  const rates: number[] = []
  for (let i = 0; i < passes; i++) {
    const t0 = performance.now()
    const n = pass(keyOf, valueOf, partitions)
    const seconds = (performance.now() - t0) / 1000
    if (n !== records * 2) throw new Error(`bare loop produced ${n} records for ${records} inputs`)
    rates.push(Math.round(records / seconds))
  }
  return { passes: rates, bestPerSec: Math.max(...rates) }
}
