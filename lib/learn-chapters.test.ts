import { describe, expect, it } from 'vitest'
import { SCENARIOS } from '../server/lab/scenarios/index.ts'
import type { EvidenceCard } from './evidence.ts'
import {
  chapterNumber,
  followedThroughFiveSteps,
  LEARN_CHAPTERS,
  latestCard,
  scenarioVerdict,
} from './learn-chapters.ts'

function card(name: string, endedAtMs: number, holds: readonly boolean[]): EvidenceCard {
  return {
    id: `${name}-${endedAtMs}`,
    name,
    title: name,
    status: holds.every((h) => h) ? 'passed' : 'failed',
    startedAtMs: endedAtMs - 10,
    endedAtMs,
    expectations: holds.map((h, i) => ({ claim: `claim ${i}`, holds: h })),
    figures: {},
    conclusion: null,
    error: null,
    links: [],
  }
}

describe('the Learn chapters', () => {
  it('follow the argument in seven chapters, each naming scenarios that exist', () => {
    expect(LEARN_CHAPTERS.map((c) => c.n)).toEqual([1, 2, 3, 4, 5, 6, 7])
    const known = new Set(SCENARIOS.map((s) => s.name))
    for (const c of LEARN_CHAPTERS) for (const s of c.scenarios) expect(known.has(s), s).toBe(true)
    expect(LEARN_CHAPTERS[1]!.scenarios).toEqual([
      'crash-after-commit',
      'crash-before-commit',
      'crash-before-commit-eos',
    ])
  })

  it('read the chapter from the URL, 1 when it names none', () => {
    expect(chapterNumber('3')).toBe(3)
    for (const bad of [null, undefined, '', '0', '8', '2.5', 'x']) expect(chapterNumber(bad)).toBe(1)
  })

  it('hold a claim only when every scenario ran and every expectation of its latest card held', () => {
    const names = ['a', 'b']
    expect(scenarioVerdict(names, [], null)).toEqual({
      state: 'not-run',
      failing: [],
      undecided: [],
      missing: ['a', 'b'],
    })
    expect(scenarioVerdict(names, [card('a', 5, [true])], null).state).toBe('not-run')
    expect(scenarioVerdict(names, [card('a', 5, [true]), card('b', 6, [true, true])], null).state).toBe('holds')
    const failed = scenarioVerdict(names, [card('a', 5, [true]), card('b', 6, [true, false])], null)
    expect(failed).toEqual({ state: 'failed', failing: ['b: claim 1'], undecided: [], missing: [] })
    // A claim the machine could not tell apart fails nothing, and does not make the chapter hold.
    const close = card('b', 7, [true, false])
    close.status = 'passed'
    close.expectations[1]!.undecided = 'their intervals overlap'
    expect(scenarioVerdict(names, [card('a', 5, [true]), close], null)).toEqual({
      state: 'undecided',
      failing: [],
      undecided: ['b: claim 1: their intervals overlap'],
      missing: [],
    })
    // The latest card decides: a later pass replaces an earlier failure.
    const later = [card('a', 5, [true]), card('b', 6, [false]), card('b', 9, [true])]
    expect(latestCard(later, 'b')!.endedAtMs).toBe(9)
    expect(scenarioVerdict(names, later, null).state).toBe('holds')
    expect(scenarioVerdict(names, later, 'b').state).toBe('running')
    expect(scenarioVerdict(names, later, 'other').state).toBe('holds')
  })

  it('see a record followed through the five steps only when a trace reached all five', () => {
    const steps = (...s: number[]) => ({ steps: s.map((step) => ({ step })) })
    expect(followedThroughFiveSteps([steps(1, 2, 3, 4)])).toBe(false)
    expect(followedThroughFiveSteps([steps(1, 2, 3, 4), steps(1, 2, 3, 4, 5)])).toBe(true)
  })
})
