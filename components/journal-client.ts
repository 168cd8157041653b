// The lab's journal over REST (never over the socket: the live stream keeps its budget): pages of
// entries after an id, past frames by time, and the pure bookkeeping of what the dashboard keeps of
// them (every non-transaction entry, aborted transactions, the newest commits; bounded).

import type { JournalCategory, JournalEntry, JournalPage, LabFrameResponse } from '../lib/journal.ts'
import type { LabSnapshot } from '../lib/lab-protocol.ts'
import { authHeaders } from './lab-token.ts'

/** Entries asked for per request. */
export const JOURNAL_PAGE_LIMIT = 1000

/** What the dashboard keeps in memory, at most. */
export const KEEP = { events: 5000, aborted: 1000, committed: 400 } as const

async function getJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  const r = await fetch(url, { headers: authHeaders(), signal })
  if (!r.ok) {
    let why = `${r.status} ${r.statusText}`
    try {
      const body = (await r.json()) as { error?: string }
      if (body.error) why = body.error
    } catch {
      // not JSON: the status says it
    }
    throw new Error(why)
  }
  return (await r.json()) as T
}

/** Whether a read carries committed transactions ('none': aborted ones only; most of a busy journal is commits). */
export type CommitsRead = 'all' | 'none'

/** GET /api/lab/journal: entries with ids above `after`, oldest first (all categories when none are named). */
export function fetchJournalPage(
  after: number,
  categories: readonly JournalCategory[] | null,
  {
    signal,
    commits = 'all',
    limit = JOURNAL_PAGE_LIMIT,
  }: { signal?: AbortSignal; commits?: CommitsRead; limit?: number } = {},
): Promise<JournalPage> {
  const q = new URLSearchParams({ after: String(after), limit: String(limit) })
  if (categories) q.set('category', categories.join(','))
  if (commits === 'none') q.set('commits', 'none')
  return getJson<JournalPage>(`/api/lab/journal?${q}`, signal)
}

/**
 * GET /api/lab/at: the lab as it was shown at (or just after) `atMs`. Rounded up: the lab's clock
 * has fractions of a millisecond, and the frame must not precede the moment asked for.
 */
export function fetchFrame(atMs: number, signal?: AbortSignal): Promise<LabFrameResponse<LabSnapshot>> {
  return getJson<LabFrameResponse<LabSnapshot>>(`/api/lab/at?t=${Math.ceil(atMs)}`, signal)
}

/**
 * The id to ask after next. A page that says `more` ends at its last entry; a complete one has seen
 * everything up to the span's newest id, including entries of categories it did not ask for.
 */
export function nextCursor(after: number, page: JournalPage): number {
  const last = page.entries.length ? page.entries[page.entries.length - 1]!.id : after
  if (page.more) return Math.max(after, last)
  return Math.max(after, last, page.span.lastId)
}

/** The entries without their committed transactions (before a fresh window of them is merged in). */
export function withoutCommits(entries: readonly JournalEntry[]): JournalEntry[] {
  return entries.filter((e) => !(e.fact.kind === 'txn' && e.fact.outcome === 'committed'))
}

function keptKind(e: JournalEntry): keyof typeof KEEP {
  if (e.fact.kind === 'txn') return e.fact.outcome === 'aborted' ? 'aborted' : 'committed'
  return e.fact.kind === 'compacted' ? 'committed' : 'events'
}

/**
 * Adds `incoming` to `kept` (by id: a repeated entry counts once), oldest first, dropping what the
 * journal has compacted away (before `fromMs`) and the oldest of each kind past KEEP.
 */
export function mergeEntries(
  kept: readonly JournalEntry[],
  incoming: readonly JournalEntry[],
  fromMs: number,
): JournalEntry[] {
  const byId = new Map<number, JournalEntry>()
  for (const e of kept) byId.set(e.id, e)
  for (const e of incoming) byId.set(e.id, e)
  const all = [...byId.values()]
    .filter((e) => e.atMs >= fromMs || e.fact.kind === 'compacted')
    .sort((a, b) => a.id - b.id)
  const room = { ...KEEP } as Record<keyof typeof KEEP, number>
  const out: JournalEntry[] = []
  for (let i = all.length - 1; i >= 0; i--) {
    const e = all[i]!
    const k = keptKind(e)
    if (room[k] <= 0) continue
    room[k]--
    out.push(e)
  }
  return out.reverse()
}
