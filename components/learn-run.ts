// A chapter's button: runs its scenarios one after the other on the live lab, through the same
// command as the Scenarios page (runScenario: the scenario sets the lab up and hands it back with the
// settings from before). The next starts once the previous one's evidence card has appeared.

import { useCallback, useEffect, useRef, useState } from 'react'
import type { EvidenceCard } from '../lib/lab-protocol.ts'
import { useCommand, type SendCommand } from './use-command.ts'

interface Queue {
  names: readonly string[]
  /** Index of the scenario started last. */
  at: number
  /** Card ids that existed when it was started: its own card is the first new one of its name. */
  known: ReadonlySet<string>
}

/** The scenario to start next, or null while the one started last has not ended (pure, for tests). */
export function nextScenario(queue: Queue, cards: readonly EvidenceCard[]): number | null {
  const name = queue.names[queue.at]
  if (name === undefined) return null
  const ended = cards.some((c) => c.name === name && !queue.known.has(c.id))
  return ended ? queue.at + 1 : null
}

export function useChapterRun(send: SendCommand, cards: readonly EvidenceCard[]) {
  const [run, state] = useCommand(send)
  const [queue, setQueue] = useState<Queue | null>(null)
  const cardsRef = useRef(cards)
  cardsRef.current = cards

  const startAt = useCallback(
    async (names: readonly string[], at: number) => {
      const next: Queue = { names, at, known: new Set(cardsRef.current.map((c) => c.id)) }
      setQueue(next)
      const r = await run('runScenario', { name: names[at]! })
      if (!r.ok) setQueue(null)
    },
    [run],
  )

  useEffect(() => {
    if (queue === null) return
    const next = nextScenario(queue, cards)
    if (next === null) return
    if (next >= queue.names.length) setQueue(null)
    else void startAt(queue.names, next)
  }, [queue, cards, startAt])

  const start = useCallback((names: readonly string[]) => void startAt(names, 0), [startAt])
  return {
    start,
    /** The chapter's scenarios still to end, while it runs. */
    busy: queue !== null || state.pending,
    current: queue ? (queue.names[queue.at] ?? null) : null,
    step: queue ? { at: queue.at + 1, of: queue.names.length } : null,
    error: state.error,
  }
}
