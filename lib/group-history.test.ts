import { describe, expect, it } from 'vitest'
import { AFTER_KILL, BEFORE_KILL, REPLACED } from './__fixtures__/group-looks.ts'
import { foldGeneration, foldLag, type GenerationHistory, lagOf, thinPoints } from './group-history.ts'
import type { GoneHow } from './group-view.ts'

const EMPTY: GenerationHistory = { generations: [], earlier: 0 }
const killed = (): GoneHow => 'killed'
const fold = (...looks: (typeof BEFORE_KILL)[]) => looks.reduce((h, o) => foldGeneration(h, o, killed), EMPTY)

describe('the generation history', () => {
  const killEndsGeneration =
    'shows a kill as generation N ending with the member gone and its partitions moved to the survivors, then N+1'
  it(killEndsGeneration, () => {
    const h = fold(BEFORE_KILL, AFTER_KILL)
    expect(h.generations.map((g) => g.generationId)).toEqual([3, 4])
    expect(h.generations[0]!.endedBy).toEqual({
      atMs: 7_000,
      joined: [],
      gone: [{ memberId: 'w2-2', workerId: 'w2', how: 'killed' }],
      moved: [
        { partition: 2, from: 'w2-2', to: 'w1-1' },
        { partition: 3, from: 'w2-2', to: 'w3-3' },
      ],
    })
    expect(h.generations[1]).toMatchObject({ generationId: 4, startedAtMs: 7_000, endedBy: null })
  })

  it('names the member that joined and the partitions it took', () => {
    const h = fold(BEFORE_KILL, AFTER_KILL, REPLACED)
    expect(h.generations[1]!.endedBy).toMatchObject({
      joined: [{ memberId: 'w4-4', workerId: 'w4' }],
      gone: [],
      moved: [
        { partition: 2, from: 'w1-1', to: 'w4-4' },
        { partition: 3, from: 'w3-3', to: 'w4-4' },
      ],
    })
  })

  it('continues a generation seen again, learning a worker id reported later, and ignores a late older report', () => {
    const anonymous = { ...BEFORE_KILL, members: BEFORE_KILL.members.map((m) => ({ ...m, workerId: null })) }
    const h = fold(anonymous, { ...BEFORE_KILL, atMs: 2_000 }, { ...BEFORE_KILL, generationId: 2, atMs: 3_000 })
    expect(h.generations).toHaveLength(1)
    expect(h.generations[0]!.startedAtMs).toBe(1_000)
    expect(h.generations[0]!.members.map((m) => m.workerId)).toEqual(['w1', 'w2', 'w3'])
  })

  const staleIdKeepsMembers =
    "keeps a generation's members when the survivors are seen under its id before they report the next one (a " +
    'stale id), so the kill still ends it'
  it(staleIdKeepsMembers, () => {
    const h = fold(BEFORE_KILL, { ...AFTER_KILL, generationId: BEFORE_KILL.generationId, atMs: 6_000 }, AFTER_KILL)
    expect(h.generations.map((g) => g.generationId)).toEqual([3, 4])
    expect(h.generations[0]!.members.map((m) => m.memberId)).toEqual(BEFORE_KILL.members.map((m) => m.memberId).sort())
    expect(h.generations[0]!.endedBy!.gone).toEqual([{ memberId: 'w2-2', workerId: 'w2', how: 'killed' }])
  })

  const learnsLateGenerationId =
    'learns a generation id reported later, and never forgets a worker id (a killed worker no longer reports its ' +
    'member)'
  it(learnsLateGenerationId, () => {
    const h = fold(
      { ...BEFORE_KILL, generationId: null },
      { ...BEFORE_KILL, atMs: 2_000 },
      {
        ...BEFORE_KILL,
        atMs: 3_000,
        members: BEFORE_KILL.members.map((m) => (m.workerId === 'w2' ? { ...m, workerId: null } : m)),
      },
      AFTER_KILL,
    )
    expect(h.generations.map((g) => g.generationId)).toEqual([3, 4])
    expect(h.generations[0]!.members.map((m) => m.workerId)).toEqual(['w1', 'w2', 'w3'])
    expect(h.generations[0]!.endedBy!.gone).toEqual([{ memberId: 'w2-2', workerId: 'w2', how: 'killed' }])
  })

  it('without generation ids (none reported) tells generations apart by their members and assignment', () => {
    const unknown = (o: typeof BEFORE_KILL) => ({ ...o, generationId: null })
    const h = fold(unknown(BEFORE_KILL), unknown({ ...BEFORE_KILL, atMs: 2_000 }), unknown(AFTER_KILL))
    expect(h.generations.map((g) => [g.generationId, g.startedAtMs])).toEqual([
      [null, 1_000],
      [null, 7_000],
    ])
  })

  it('keeps the last generations only and counts the ones dropped', () => {
    let h = EMPTY
    for (let g = 1; g <= 7; g++) h = foldGeneration(h, { ...BEFORE_KILL, generationId: g, atMs: g }, killed, 5)
    expect(h.generations.map((x) => x.generationId)).toEqual([3, 4, 5, 6, 7])
    expect(h.earlier).toBe(2)
    expect(h.generations[0]!.endedBy).not.toBeNull()
  })
})

describe('the lag series', () => {
  it('is end − committed, never below 0, and unknown before a first commit', () => {
    expect(lagOf(120, 100)).toBe(20)
    expect(lagOf(100, 105)).toBe(0)
    expect(lagOf(100, null)).toBeNull()
  })

  it('adds a point per input partition at each look', () => {
    const s1 = foldLag([], 1_000, [null, 10], [5, 30])
    const s2 = foldLag(s1, 2_000, [5, 25], [9, 30])
    expect(s2).toEqual([
      {
        partition: 0,
        points: [
          { atMs: 1_000, committed: null, end: 5, lag: null },
          { atMs: 2_000, committed: 5, end: 9, lag: 4 },
        ],
      },
      {
        partition: 1,
        points: [
          { atMs: 1_000, committed: 10, end: 30, lag: 20 },
          { atMs: 2_000, committed: 25, end: 30, lag: 5 },
        ],
      },
    ])
  })

  const lagSeriesStaysBounded =
    'stays bounded for the lab’s life: a full series keeps about half its points spread over the whole span, the ' +
    'first and the latest'
  it(lagSeriesStaysBounded, () => {
    let s = foldLag([], 0, [0], [0], 10)
    for (let t = 1; t <= 1_000; t++) s = foldLag(s, t, [t], [t + 3], 10)
    const points = s[0]!.points
    expect(points.length).toBeLessThanOrEqual(10)
    expect(points[points.length - 1]!.atMs).toBe(1_000)
    // The lab’s start is kept, and the rest spread over the span: no gap over two
    // fifths of it (twice span / (max / 2)).
    expect(points[0]!.atMs).toBe(0)
    const gaps = points.slice(1).map((p, i) => p.atMs - points[i]!.atMs)
    expect(Math.max(...gaps)).toBeLessThanOrEqual(400)
    expect(thinPoints(points, 10)).toEqual(points)
  })
})
