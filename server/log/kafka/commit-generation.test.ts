import { describe, expect, it } from 'vitest'
import { CommitGeneration } from './commit-generation.ts'

const gen = (generationId: number, memberId = 'm1') => ({ generationId, memberId })

describe('CommitGeneration: the generation an offset commit carries after kafkajs rejoined', () => {
  it('starts with no generation (a commit before the first join is refused)', () => {
    expect(new CommitGeneration().identity()).toEqual(gen(-1, ''))
  })

  it('switches at once when the join took nothing away', () => {
    const g = new CommitGeneration()
    expect(g.joined(gen(1), 'keeps')).toEqual({ switchNow: true })
    expect(g.identity()).toEqual(gen(1))
  })

  const keepsOldGenerationUntilPoll =
    'keeps the old generation while a revocation waits for poll(), then switches when poll() reaches the queued ' +
    'step'
  it(keepsOldGenerationUntilPoll, () => {
    const g = new CommitGeneration()
    g.joined(gen(4), 'keeps')
    const outcome = g.joined(gen(5), 'releases')
    expect(outcome).toEqual({ switchNow: false, identity: gen(5) })
    // The worker's commit in onPartitionsRevoked, or any commit before it: still
    // generation 4 (refused by the coordinator).
    expect(g.identity()).toEqual(gen(4))
    if (!outcome.switchNow) g.switchTo(outcome.identity)
    expect(g.identity()).toEqual(gen(5))
  })

  it('a join that takes nothing away, behind an undelivered revocation, waits its turn too', () => {
    const g = new CommitGeneration()
    g.joined(gen(2), 'keeps')
    const revoking = g.joined(gen(3), 'releases')
    const quiet = g.joined(gen(4), 'keeps')
    expect(quiet.switchNow).toBe(false)
    expect(g.identity()).toEqual(gen(2))
    if (!revoking.switchNow) g.switchTo(revoking.identity)
    expect(g.identity()).toEqual(gen(3))
    if (!quiet.switchNow) g.switchTo(quiet.identity)
    expect(g.identity()).toEqual(gen(4))
    // Nothing queued any more: the next quiet join switches at once.
    expect(g.joined(gen(5), 'keeps').switchNow).toBe(true)
  })

  it('a member the coordinator dropped keeps its old member id until the loss is delivered', () => {
    const g = new CommitGeneration()
    g.joined(gen(7, 'old'), 'keeps')
    const lost = g.joined(gen(9, 'new'), 'releases')
    expect(g.identity()).toEqual(gen(7, 'old'))
    if (!lost.switchNow) g.switchTo(lost.identity)
    expect(g.identity()).toEqual(gen(9, 'new'))
  })
})
