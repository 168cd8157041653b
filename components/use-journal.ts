// The journal's entries in the dashboard, fetched incrementally over REST at most once a second and
// only when the live snapshot's span says there is something new. The first load reads the whole
// journal except transactions (few entries), then the newest transactions; after that, every
// category after the last id seen.

import { useEffect, useRef, useState } from 'react'
import { JOURNAL_CATEGORIES, type JournalEntry, type JournalSpan } from '../lib/journal.ts'
import { fetchJournalPage, JOURNAL_PAGE_LIMIT, mergeEntries, nextCursor } from './journal-client.ts'

/** At most one request per this many ms. */
export const JOURNAL_POLL_MS = 1000
/** Pages read on the first load, at most. */
const FIRST_LOAD_PAGES = 10
/** Transactions read on the first load: those among the newest this many entries (one page at most). */
const FIRST_LOAD_TXN_WINDOW = JOURNAL_PAGE_LIMIT

const NOT_TRANSACTIONS = JOURNAL_CATEGORIES.filter((c) => c !== 'transactions')

export interface UseJournal {
  /** Oldest first. */
  entries: JournalEntry[]
  /** The newest id read (entries up to it are in `entries`, as far as they are kept). */
  cursor: number
  /** Why the last request failed, or null. */
  error: string | null
}

interface Loaded {
  entries: JournalEntry[]
  cursor: number
  /** The journal read (JournalSpan.sinceMs). */
  sinceMs: number
}

async function firstLoad(span: JournalSpan, signal: AbortSignal): Promise<Loaded> {
  let entries: JournalEntry[] = []
  let after = 0
  for (let i = 0; i < FIRST_LOAD_PAGES; i++) {
    const page = await fetchJournalPage(after, NOT_TRANSACTIONS, signal)
    entries = mergeEntries(entries, page.entries, page.span.fromMs)
    after = nextCursor(after, page)
    if (!page.more) break
  }
  const txns = await fetchJournalPage(Math.max(0, span.lastId - FIRST_LOAD_TXN_WINDOW), ['transactions'], signal)
  entries = mergeEntries(
    entries,
    txns.entries.filter((e) => e.id <= after),
    txns.span.fromMs,
  )
  return { entries, cursor: after, sinceMs: span.sinceMs }
}

/**
 * What to read next, given the journal read so far (its sinceMs, null before the first load), the
 * newest id read and the live snapshot's span. A restarted server serves another journal, numbered
 * from 1 again: start over. A live snapshot's lastId may lag the last page read (the page was served
 * after the snapshot); that alone is no restart.
 */
export function nextRead(loaded: number | null, cursor: number, span: JournalSpan): 'first' | 'after-cursor' | 'none' {
  if (loaded === null || span.sinceMs !== loaded) return 'first'
  return span.lastId > cursor ? 'after-cursor' : 'none'
}

export function useJournal(span: JournalSpan | undefined): UseJournal {
  const [state, setState] = useState<UseJournal>({ entries: [], cursor: 0, error: null })
  const spanRef = useRef(span)
  spanRef.current = span
  const stateRef = useRef(state)
  stateRef.current = state
  const available = span !== undefined

  useEffect(() => {
    if (!available) return
    const controller = new AbortController()
    let busy = false
    let loaded: number | null = null
    const tick = async () => {
      const s = spanRef.current
      if (busy || !s) return
      const { cursor, entries } = stateRef.current
      const read = nextRead(loaded, cursor, s)
      if (read === 'none') return
      busy = true
      try {
        if (read === 'first') {
          const first = await firstLoad(s, controller.signal)
          loaded = first.sinceMs
          setState({ entries: first.entries, cursor: first.cursor, error: null })
        } else {
          const page = await fetchJournalPage(cursor, null, controller.signal)
          setState({
            entries: mergeEntries(entries, page.entries, page.span.fromMs),
            cursor: nextCursor(cursor, page),
            error: null,
          })
        }
      } catch (err) {
        if (!controller.signal.aborted)
          setState((st) => ({ ...st, error: err instanceof Error ? err.message : String(err) }))
      } finally {
        busy = false
      }
    }
    void tick()
    const id = setInterval(() => void tick(), JOURNAL_POLL_MS)
    return () => {
      clearInterval(id)
      controller.abort()
    }
  }, [available])

  return state
}
