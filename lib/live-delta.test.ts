import { describe, expect, it } from 'vitest'
import { fixtureSnapshot } from '../components/__fixtures__/lab-snapshot.ts'
import type { LabSnapshot } from './lab-protocol.ts'
import { applyPatch, diff, wireCopy } from './live-delta.ts'

function roundTrip(prev: unknown, next: unknown) {
  const patch = diff(prev, next)
  const wire = JSON.parse(JSON.stringify(patch ?? null))
  return wire === null ? prev : applyPatch(prev, wire)
}

function tick(s: LabSnapshot): LabSnapshot {
  const last = s.series[s.series.length - 1]!
  return {
    ...s,
    seq: s.seq + 1,
    atMs: s.atMs + 100,
    series: [...s.series.slice(1), { ...last, t: last.t + 1000, processedPerSec: 1234 }],
    tasks: s.tasks.map((t, i) =>
      i === 2 ? { ...t, steps: { ...t.steps, consumed: t.steps.consumed + 7 }, lag: 3 } : t,
    ),
    transactions: [...s.transactions.slice(2), { ...s.transactions[0]!, id: 'txn-new', outcome: 'open', endMs: null }],
    traces: s.traces.filter((t) => t.id !== 'r-2'),
    correctness: null,
  }
}

describe('snapshot deltas', () => {
  it('is undefined for equal values', () => {
    expect(diff(fixtureSnapshot, structuredClone(fixtureSnapshot))).toBeUndefined()
  })

  it('rebuilds the next snapshot exactly after a JSON round trip', () => {
    let s = fixtureSnapshot
    for (let i = 0; i < 5; i++) {
      const next = tick(s)
      expect(roundTrip(s, next)).toEqual(next)
      s = next
    }
  })

  it('keeps unchanged subtrees and is much smaller than the snapshot', () => {
    const next = tick(fixtureSnapshot)
    const patch = diff(fixtureSnapshot, next)!
    const applied = applyPatch(fixtureSnapshot, patch)
    expect(applied.workers).toBe(fixtureSnapshot.workers)
    expect(applied.tasks[0]).toBe(fixtureSnapshot.tasks[0])
    expect(applied.tasks[2]).not.toBe(fixtureSnapshot.tasks[2])
    expect(JSON.stringify(patch).length).toBeLessThan(JSON.stringify(next).length / 8)
  })

  it('handles reordering, removals, nulls and unkeyed arrays', () => {
    const cases: [unknown, unknown][] = [
      [
        {
          a: [
            { id: 'x', v: 1 },
            { id: 'y', v: 2 },
          ],
        },
        {
          a: [
            { id: 'y', v: 2 },
            { id: 'x', v: 1 },
          ],
        },
      ],
      [{ a: [{ id: 'x' }, { id: 'y' }, { id: 'z' }] }, { a: [{ id: 'x' }, { id: 'z' }] }],
      [{ a: [1, 2, 3] }, { a: [1, 2] }],
      [{ a: null, b: 1 }, { a: { c: 1 } }],
      [{ a: { c: 1 } }, { a: null }],
      [
        { a: [{ t: 1, kind: 'kill', label: 'x' }] },
        {
          a: [
            { t: 1, kind: 'kill', label: 'x' },
            { t: 1, kind: 'rebalance', label: 'r' },
          ],
        },
      ],
      [{ a: [{ id: 'x' }, { id: 'x' }] }, { a: [{ id: 'x' }] }],
      [[], [{ id: 1 }]],
    ]
    for (const [prev, next] of cases) expect(roundTrip(prev, next)).toEqual(next)
  })
})

describe('the wire copy', () => {
  it('trims numbers to what the dashboard shows and copies deeply', () => {
    const src = { t: 1795938349311.363, p50: 85.12109375, n: 7, nested: [{ x: 0.004 }], none: null, gone: undefined }
    const copy = wireCopy(src)
    expect(copy).toEqual({ t: 1795938349311, p50: 85.12, n: 7, nested: [{ x: 0 }], none: null })
    expect(copy.nested[0]).not.toBe(src.nested[0])
  })
})
