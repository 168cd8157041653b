// The expected results, recomputed from the committed input alone: each input record applied once,
// in input offset order per partition. Keys are partitioned, so offset order within a partition is
// each key's order.

import { type Aggregate, aggregatesEqual, applyToAggregate, parseInputValue } from '../../lib/records.ts'

export interface InputRecord {
  key: string | null
  value: string | null
}

/**
 * What an input record contributes: its key and value, or null for a poison record
 * (no key, or a value that does not parse).
 */
export function inputUpdate(r: InputRecord): { key: string; value: number } | null {
  if (r.key === null) return null
  const value = parseInputValue(r.value)
  return value === null ? null : { key: r.key, value }
}

/** Running aggregates per key; apply each committed input record once, in offset order. */
export class AggregateRecomputation {
  private readonly byKey = new Map<string, Aggregate>()

  /** Applies one update and returns the key's aggregate right after it. */
  apply(key: string, value: number): Aggregate {
    const next = applyToAggregate(this.byKey.get(key), value)
    this.byKey.set(key, next)
    return next
  }

  /** The expected final aggregate of every key. */
  final(): ReadonlyMap<string, Aggregate> {
    return this.byKey
  }
}

export interface Recomputed {
  /** The key's aggregate right after each record; null for a poison record. */
  after: (Aggregate | null)[]
  final: Map<string, Aggregate>
}

/** Recomputes the aggregates over one partition's committed input records, given in offset order (pure). */
export function recomputeAggregates(records: readonly InputRecord[]): Recomputed {
  const recomputation = new AggregateRecomputation()
  const after = records.map((r) => {
    const update = inputUpdate(r)
    return update ? recomputation.apply(update.key, update.value) : null
  })
  return { after, final: new Map(recomputation.final()) }
}

/** Keys whose aggregate differs between the two maps, a key present in only one of them included (pure). */
export function differingKeys(
  expected: ReadonlyMap<string, Aggregate>,
  actual: ReadonlyMap<string, Aggregate>,
): string[] {
  const out: string[] = []
  for (const [key, agg] of expected) if (!aggregatesEqual(agg, actual.get(key))) out.push(key)
  for (const key of actual.keys()) if (!expected.has(key)) out.push(key)
  return out.sort()
}
