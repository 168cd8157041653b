// The journal's entries in the dashboard, fetched incrementally over REST at most once a second and
// only when the live snapshot's span says there is something new. Committed transactions, most of a
// busy journal, are read only while a page lists them (the Journal page): elsewhere the reads leave
// them out (aborted ones stay, for the markers). The first load reads the journal without commits;
// a page that lists them adds the newest window of them; after that, everything after the last id
// seen.

import { startTransition, useEffect, useRef, useState } from 'react'
import type { JournalEntry, JournalSpan } from '../lib/journal.ts'
import { type CommitsRead, fetchJournalPage, KEEP, mergeEntries, nextCursor, withoutCommits } from './journal-client.ts'

/** At most one request per this many ms. */
export const JOURNAL_POLL_MS = 1000
/** Pages read on the first load, at most. */
const FIRST_LOAD_PAGES = 10
/** Committed transactions read when a page starts listing them: as many as the dashboard keeps. */
const COMMITS_WINDOW = KEEP.committed

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
}

async function firstLoad(signal: AbortSignal): Promise<Loaded> {
  let entries: JournalEntry[] = []
  let after = 0
  for (let i = 0; i < FIRST_LOAD_PAGES; i++) {
    const page = await fetchJournalPage(after, null, { signal, commits: 'none' })
    entries = mergeEntries(entries, page.entries, page.span.fromMs)
    after = nextCursor(after, page)
    if (!page.more) break
  }
  return { entries, cursor: after }
}

/** The newest committed transactions up to `cursor`, in place of those held. */
async function commitsWindow(held: Loaded, signal: AbortSignal): Promise<Loaded> {
  const page = await fetchJournalPage(Math.max(0, held.cursor - COMMITS_WINDOW), ['transactions'], {
    signal,
    limit: COMMITS_WINDOW,
  })
  const upToCursor = page.entries.filter((e) => e.id <= held.cursor)
  return { entries: mergeEntries(withoutCommits(held.entries), upToCursor, page.span.fromMs), cursor: held.cursor }
}

/** What has been read: the journal (its sinceMs, null before the first load), and whether with its commits. */
export interface ReadSoFar {
  sinceMs: number | null
  commits: CommitsRead
}

export type JournalRead = 'first' | 'commits-window' | 'after-cursor' | 'none'

/**
 * What to read next, given what has been read, the newest id read, the live snapshot's span and
 * whether the page lists commits. A restarted server serves another journal, numbered from 1 again:
 * start over. A live snapshot's lastId may lag the last page read (the page was served after the
 * snapshot); that alone is no restart.
 */
export function nextRead(read: ReadSoFar, cursor: number, span: JournalSpan, commits: CommitsRead): JournalRead {
  if (read.sinceMs === null || span.sinceMs !== read.sinceMs) return 'first'
  if (commits === 'all' && read.commits === 'none') return 'commits-window'
  return span.lastId > cursor ? 'after-cursor' : 'none'
}

/** The journal read so far; `commits`: whether the page shown lists committed transactions. */
export function useJournal(span: JournalSpan | undefined, commits: CommitsRead): UseJournal {
  const [state, setState] = useState<UseJournal>({ entries: [], cursor: 0, error: null })
  const spanRef = useRef(span)
  spanRef.current = span
  const stateRef = useRef(state)
  stateRef.current = state
  const readRef = useRef<ReadSoFar>({ sinceMs: null, commits: 'none' })
  const available = span !== undefined

  useEffect(() => {
    if (!available) return
    // A page that stops listing commits stops reading them; the next one to list them reads a fresh window.
    if (commits === 'none') readRef.current = { ...readRef.current, commits: 'none' }
    const controller = new AbortController()
    const { signal } = controller
    let busy = false
    const tick = async () => {
      const s = spanRef.current
      if (busy || !s) return
      const { cursor, entries } = stateRef.current
      const read = nextRead(readRef.current, cursor, s, commits)
      if (read === 'none') return
      busy = true
      try {
        if (read === 'first') {
          let loaded = await firstLoad(signal)
          if (commits === 'all') loaded = await commitsWindow(loaded, signal)
          readRef.current = { sinceMs: s.sinceMs, commits }
          startTransition(() => setState({ ...loaded, error: null }))
        } else if (read === 'commits-window') {
          const loaded = await commitsWindow({ entries, cursor }, signal)
          readRef.current = { ...readRef.current, commits: 'all' }
          startTransition(() => setState({ ...loaded, error: null }))
        } else {
          const page = await fetchJournalPage(cursor, null, { signal, commits })
          // A transition: the new lines render in slices, never in one long task (read every second).
          startTransition(() =>
            setState({
              entries: mergeEntries(entries, page.entries, page.span.fromMs),
              cursor: nextCursor(cursor, page),
              error: null,
            }),
          )
        }
      } catch (err) {
        if (!signal.aborted) setState((st) => ({ ...st, error: err instanceof Error ? err.message : String(err) }))
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
  }, [available, commits])

  return state
}
