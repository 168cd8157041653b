import { describe, expect, it } from 'vitest'
import type { EvidenceCard } from '../lib/lab-protocol.ts'
import { nextScenario } from './learn-run.ts'

const card = (id: string, name: string) => ({ id, name }) as EvidenceCard

describe("a chapter's scenarios in order", () => {
  it('starts the next once the one started last has a new evidence card', () => {
    const queue = { names: ['a', 'b'], at: 0, known: new Set(['a-1']) }
    expect(nextScenario(queue, [card('a-1', 'a')])).toBeNull()
    expect(nextScenario(queue, [card('a-1', 'a'), card('b-1', 'b')])).toBeNull()
    expect(nextScenario(queue, [card('a-1', 'a'), card('a-2', 'a')])).toBe(1)
    expect(nextScenario({ ...queue, at: 1 }, [card('b-2', 'b')])).toBe(2)
  })
})
