// State mismatches and double-applied updates: the one definition of both, used by both validators
// (validateRun and IncrementalValidator), the lab's correctness panel, the duplicate ledger's
// wording, the scenarios and the README's measures section.
//
// - A **state mismatch** is a key whose state differs from the replay: one of its committed output
//   records carries an aggregate (count, sum, min, max) other than the recomputation's right after
//   that output's input record, or its latest committed changelog value or final state-store entry
//   differs from the final recomputation. It is counted once per key: the outputs that follow an
//   inflated aggregate are all inflated too, and counting each of them made the figure climb for as
//   long as the key kept receiving input, with no new fault.
// - A **double-applied update** is an input record whose update reached a key's state twice (a
//   record redone after a crash on top of a state that already held it, or a transaction aborted
//   after its state was kept). Each one adds 1 to the key's running count, so per key they number
//   the most by which the count in its outputs ran ahead of the replay's count; summed over keys.
//
// So every mismatched key holds at least one double-applied update when double application is the
// cause (mismatches ≤ double-applied updates), and neither figure moves without a new fault. Extra
// copies of an output (duplicates) are not compared: the next output of the key shows the inflation.

import { type Aggregate, aggregatesEqual } from '../../lib/records.ts'

/** Whether a compared output names its input record's key (a different key is a mismatch whatever its aggregate). */
export type OutputKey = 'input-key' | 'other-key'

export class StateDrift {
  /** Keys with a mismatching output, and the most their count ran ahead of the replay's. */
  private readonly excess = new Map<string, number>()

  /**
   * One compared output (the first copy for its input record). Returns whether this is the key's
   * first mismatch (the one worth an example).
   */
  noteOutput(key: string, outputKey: OutputKey, expected: Aggregate, actual: Aggregate): boolean {
    const sameKey = outputKey === 'input-key'
    if (sameKey && aggregatesEqual(expected, actual)) return false
    const ahead = sameKey ? Math.max(0, actual.count - expected.count) : 0
    const known = this.excess.get(key)
    this.excess.set(key, Math.max(known ?? 0, ahead))
    return known === undefined
  }

  /** Keys whose outputs differ from the replay. */
  get mismatchedKeys(): number {
    return this.excess.size
  }

  /** Input records applied to state more than once, as the outputs' running counts show them. */
  get doubleApplied(): number {
    let n = 0
    for (const x of this.excess.values()) n += x
    return n
  }

  /** The state mismatches: keys differing in their outputs or in the end comparisons, each once. */
  mismatchesWith(finalKeys: ReadonlySet<string>): number {
    let n = this.excess.size
    for (const key of finalKeys) if (!this.excess.has(key)) n++
    return n
  }
}
