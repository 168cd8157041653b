// The ledger's double-applied updates agree with the validator's (server/validator/state-drift.ts):
// a redo that applies m updates a second time counts m, however many extra copies it writes, and a
// later clean output of the key adds nothing.

import { describe, expect, it } from 'vitest'
import { encodeOutputValue } from '../../lib/records.ts'
import { DuplicateLedger } from './duplicate-ledger.ts'

function outputs() {
  let offset = 0
  return (key: string, inputOffset: number, count: number) => ({
    topic: 'output',
    partition: 0,
    offset: offset++,
    key,
    value: encodeOutputValue(key, { count, sum: count, min: 1, max: 1 }, { partition: 0, offset: inputOffset }),
    headers: undefined,
    timestamp: 0,
  })
}

describe('the duplicate ledger', () => {
  it('counts the updates a redo applied twice, not every inflated copy', () => {
    const ledger = new DuplicateLedger()
    const out = outputs()
    // Key a: input offsets 0-9, running counts 1-10.
    for (let o = 0; o < 10; o++) ledger.observe(out('a', o, o + 1))
    // A crash: offsets committed up to 5, the state restored with offsets 0-7 (count 8); 5-9 are redone.
    // 5, 6 and 7 reach the state a second time: every redone copy runs 3 ahead of its first copy.
    for (let o = 5; o < 10; o++) ledger.observe(out('a', o, 8 + (o - 5) + 1))
    expect(ledger.entries()).toEqual([
      {
        key: 'a',
        duplicates: 5,
        doubleApplied: 3,
        causes: ['unattributed (5)'],
        copies: { partition: 0, first: 9, copy: 14, source: { partition: 0, offset: 9 } },
      },
    ])
    // Later inputs of a, inflated by 3 but clean: nothing new.
    for (let o = 10; o < 30; o++) ledger.observe(out('a', o, o + 1 + 3))
    expect(ledger.entries()[0]).toMatchObject({ duplicates: 5, doubleApplied: 3 })
    // A second fault: offsets 28-29 redone on a state that holds 28 already (1 more update applied twice).
    ledger.observe(out('a', 28, 29 + 3 + 1))
    ledger.observe(out('a', 29, 30 + 3 + 1))
    ledger.observe(out('a', 30, 31 + 3 + 1))
    expect(ledger.entries()[0]).toMatchObject({ duplicates: 7, doubleApplied: 4 })
  })

  it('a retried produce (a copy with the same count) is a duplicate but no double-applied update', () => {
    const ledger = new DuplicateLedger()
    const out = outputs()
    ledger.observe(out('b', 0, 1))
    ledger.observe(out('b', 0, 1))
    expect(ledger.entries()).toEqual([
      {
        key: 'b',
        duplicates: 1,
        doubleApplied: 0,
        causes: ['unattributed (1)'],
        copies: { partition: 0, first: 0, copy: 1, source: { partition: 0, offset: 0 } },
      },
    ])
  })
})
