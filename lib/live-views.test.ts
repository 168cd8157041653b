import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fixtureSnapshot } from '../components/__fixtures__/lab-snapshot.ts'
import type { LabSnapshot } from './lab-protocol.ts'
import { applyPatch, diff, type Patch } from './live-delta.ts'
import { liveViewOf, PARTS_LEFT_OUT, patchFor, snapshotFor } from './live-views.ts'

describe('the views a socket is sent', () => {
  it('the overview is sent no partition log, producers or duplicate ledger; every other page all of it', () => {
    const overview = snapshotFor(fixtureSnapshot, 'overview')
    for (const k of ['partitionLog', 'producers', 'duplicateLedger'] as const) {
      expect(fixtureSnapshot[k], k).toBeDefined()
      expect(overview).not.toHaveProperty(k)
    }
    expect(overview.tasks).toBe(fixtureSnapshot.tasks)
    expect(overview.transactions).toBe(fixtureSnapshot.transactions)
    expect(snapshotFor(fixtureSnapshot, 'all')).toBe(fixtureSnapshot)
    expect(liveViewOf('/')).toBe('overview')
    for (const p of ['/transactions', '/partitions', '/learn', null]) expect(liveViewOf(p)).toBe('all')
  })

  it("a view's patch, applied to its snapshot, gives its view of the next snapshot", () => {
    const parts = ['tasks', 'partitionLog', 'producers', 'seq', 'txnStats', 'group'] as const
    const value = fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }))
    const snapshot = fc.dictionary(fc.constantFrom(...parts), value)
    fc.assert(
      fc.property(snapshot, snapshot, (a, b) => {
        const [prev, next] = [a, b] as unknown as LabSnapshot[]
        const patch = diff(prev, next) as Patch | undefined
        if (!patch) return
        for (const view of ['all', 'overview'] as const) {
          const shown = applyPatch(snapshotFor(prev!, view), patchFor(patch, view))
          expect(shown).toEqual(snapshotFor(next!, view))
          for (const k of PARTS_LEFT_OUT[view]) expect(shown).not.toHaveProperty(k)
        }
      }),
      { seed: 7, numRuns: 300 },
    )
  })

  it('a patch that changes only what a view leaves out still moves the view to its seq', () => {
    const patch: Patch = ['o', { partitionLog: ['=', null] }, ['producers']]
    expect(patchFor(patch, 'overview')).toEqual(['o', {}])
    expect(patchFor(patch, 'all')).toBe(patch)
  })
})
