import { describe, expect, it } from 'vitest'
import { differingKeys, inputUpdate, recomputeAggregates } from './recompute.ts'

describe('inputUpdate', () => {
  it('takes integers written as decimal text, and treats anything else, or a missing key, as poison', () => {
    expect(inputUpdate({ key: 'a', value: '-12' })).toEqual({ key: 'a', value: -12 })
    expect(inputUpdate({ key: 'a', value: '1.5' })).toBeNull()
    expect(inputUpdate({ key: 'a', value: 'oops' })).toBeNull()
    expect(inputUpdate({ key: 'a', value: null })).toBeNull()
    expect(inputUpdate({ key: null, value: '3' })).toBeNull()
  })
})

describe('recomputeAggregates', () => {
  it('applies each record once, in order, per key, and skips poison records', () => {
    const { after, final } = recomputeAggregates([
      { key: 'a', value: '5' },
      { key: 'b', value: '2' },
      { key: 'a', value: 'oops' },
      { key: 'a', value: '-1' },
      { key: 'a', value: '7' },
    ])
    expect(after).toEqual([
      { count: 1, sum: 5, min: 5, max: 5 },
      { count: 1, sum: 2, min: 2, max: 2 },
      null,
      { count: 2, sum: 4, min: -1, max: 5 },
      { count: 3, sum: 11, min: -1, max: 7 },
    ])
    expect(final).toEqual(
      new Map([
        ['a', { count: 3, sum: 11, min: -1, max: 7 }],
        ['b', { count: 1, sum: 2, min: 2, max: 2 }],
      ]),
    )
  })

  it('shows a double-applied update as an inflated count', () => {
    const once = recomputeAggregates([{ key: 'a', value: '4' }]).final.get('a')
    const twice = recomputeAggregates([
      { key: 'a', value: '4' },
      { key: 'a', value: '4' },
    ]).final.get('a')
    expect(differingKeys(new Map([['a', once!]]), new Map([['a', twice!]]))).toEqual(['a'])
  })
})

describe('differingKeys', () => {
  const agg = (count: number) => ({ count, sum: count, min: 1, max: 1 })
  it('lists keys that differ, are missing, or are extra, sorted', () => {
    const expected = new Map([
      ['a', agg(1)],
      ['b', agg(2)],
      ['c', agg(3)],
    ])
    const actual = new Map([
      ['a', agg(1)],
      ['b', agg(5)],
      ['d', agg(1)],
    ])
    expect(differingKeys(expected, actual)).toEqual(['b', 'c', 'd'])
  })
  it('is empty for equal maps', () => {
    expect(differingKeys(new Map([['a', agg(1)]]), new Map([['a', agg(1)]]))).toEqual([])
  })
})
