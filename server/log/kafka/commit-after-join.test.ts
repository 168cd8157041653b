import { describe, expect, it } from 'vitest'
import { mayCommitAgainAfterJoin } from './commit-after-join.ts'

const before = { joins: 3, memberId: 'worker-2-a' }
const now = (joins: number, memberId: string, ...owned: string[]) => ({ joins, memberId, owned: new Set(owned) })

describe('mayCommitAgainAfterJoin', () => {
  const commitsAfterKeepingJoin =
    'commits again after a join that kept the member and every partition of the commit (the survivor of a kill)'
  it(commitsAfterKeepingJoin, () => {
    expect(
      mayCommitAgainAfterJoin(before, now(4, 'worker-2-a', 'input-2', 'input-3', 'input-0'), ['input-2', 'input-3']),
    ).toBe(true)
  })

  it('not before the join has completed: the refusal may be for another reason', () => {
    expect(mayCommitAgainAfterJoin(before, now(3, 'worker-2-a', 'input-2', 'input-3'), ['input-2', 'input-3'])).toBe(
      false,
    )
  })

  it('not when the member was dropped and joined again as a new member (its partitions may have been redone)', () => {
    expect(mayCommitAgainAfterJoin(before, now(4, 'worker-2-b', 'input-2', 'input-3'), ['input-2', 'input-3'])).toBe(
      false,
    )
  })

  it('not when one partition of the commit moved to another member', () => {
    expect(mayCommitAgainAfterJoin(before, now(4, 'worker-2-a', 'input-2'), ['input-2', 'input-3'])).toBe(false)
  })
})
