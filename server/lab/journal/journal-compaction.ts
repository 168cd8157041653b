// Compaction of the lab's journal: entries older than the window kept entry by entry are folded into
// `compacted` entries (one per minute of the journal, counts per kind and the records the folded
// transactions held). Transactions go first: a kill, a fencing, a config change, a scenario step or
// a fault is folded only when the journal holds more than its hard bound of entries once every
// transaction outside the window is already folded (hours of faults and nothing else). Pure.

import type { JournalFact, JournalLink } from '../../../lib/journal.ts'

/** One entry as the journal holds it (category and a transaction's label are made when read). */
export interface HeldEntry {
  id: number
  atMs: number
  fact: JournalFact
  label?: string
  links?: JournalLink[]
}

export interface CompactionBounds {
  /** Entries younger than this are kept entry by entry (unless over maxEntries). */
  keepMs: number
  /**
   * Committed transactions younger than this are kept entry by entry (aborted ones, and every other entry, for keepMs).
   */
  keepCommitsMs?: number
  /** Hard bound on entries held, compacted ones included. */
  maxEntries: number
  /** Compacted entries older than this many are merged pairwise (a lab that runs for days). */
  maxCompacted: number
}

export const BUCKET_MS = 60_000

/** The key a compacted entry counts a fact under: its kind, transactions by outcome. */
export function countKey(fact: JournalFact): string {
  return fact.kind === 'txn' ? `txn:${fact.outcome}${fact.cause === 'teardown' ? ':teardown' : ''}` : fact.kind
}

function recordsOf(fact: JournalFact): number {
  if (fact.kind === 'txn') return fact.outputRecords + fact.changelogRecords
  if (fact.kind === 'compacted') return fact.records
  return 0
}

type Fold = (e: HeldEntry) => boolean

const minuteOf = (e: HeldEntry): number => Math.floor(e.atMs / BUCKET_MS)

/** Folds the entries `fold` selects into one compacted entry per bucket (a minute); the others stay as they are. */
function foldBuckets(
  entries: readonly HeldEntry[],
  fold: Fold,
  bucketOf: (e: HeldEntry) => number = minuteOf,
): HeldEntry[] {
  const out: HeldEntry[] = []
  const open = new Map<number, HeldEntry & { fact: Extract<JournalFact, { kind: 'compacted' }> }>()
  for (const e of entries) {
    if (!fold(e)) {
      out.push(e)
      continue
    }
    const bucket = bucketOf(e)
    let c = open.get(bucket)
    if (!c) {
      c = { id: e.id, atMs: e.atMs, fact: { kind: 'compacted', counts: {}, records: 0, untilMs: e.atMs } }
      open.set(bucket, c)
      out.push(c)
    }
    mergeInto(c, e)
  }
  // A compacted entry takes the id of the newest entry it stands for: ids stay in order and unique.
  return out.sort((a, b) => a.id - b.id)
}

function mergeInto(c: HeldEntry & { fact: Extract<JournalFact, { kind: 'compacted' }> }, e: HeldEntry): void {
  const f = c.fact
  if (e.fact.kind === 'compacted') {
    for (const [k, n] of Object.entries(e.fact.counts)) f.counts[k] = (f.counts[k] ?? 0) + (n ?? 0)
    f.untilMs = Math.max(f.untilMs, e.fact.untilMs)
  } else {
    const k = countKey(e.fact)
    f.counts[k] = (f.counts[k] ?? 0) + 1
    f.untilMs = Math.max(f.untilMs, e.atMs)
  }
  f.records += recordsOf(e.fact)
  c.id = Math.max(c.id, e.id)
  c.atMs = Math.min(c.atMs, e.atMs)
}

/**
 * The entries after compaction at `nowMs`. Only whole minutes are folded (a minute is folded once,
 * so a compacted entry never changes after it is made); transactions older than the window first,
 * then, over the hard bound, the oldest transactions of the window, then the oldest entries of any
 * kind; compacted entries past maxCompacted are merged with their neighbour.
 */
export function compact(entries: readonly HeldEntry[], nowMs: number, bounds: CompactionBounds): HeldEntry[] {
  const cutoff = Math.floor((nowMs - bounds.keepMs) / BUCKET_MS) * BUCKET_MS
  const commitCutoff = Math.floor((nowMs - (bounds.keepCommitsMs ?? bounds.keepMs)) / BUCKET_MS) * BUCKET_MS
  const outside: Fold = (e) =>
    e.fact.kind === 'txn' && (e.atMs < cutoff || (e.fact.outcome === 'committed' && e.atMs < commitCutoff))
  if (entries.length <= bounds.maxEntries && !entries.some(outside)) return [...entries]
  let out = foldBuckets(entries, outside)
  if (out.length > bounds.maxEntries) out = foldOldest(out, bounds.maxEntries, (e) => e.fact.kind === 'txn')
  if (out.length > bounds.maxEntries) out = foldOldest(out, bounds.maxEntries, (e) => e.fact.kind !== 'compacted')
  return mergeCompacted(out, bounds.maxCompacted)
}

/**
 * Folds the oldest entries `which` selects, whole minutes of them into one entry, until the journal is back under max.
 */
function foldOldest(entries: HeldEntry[], max: number, which: Fold): HeldEntry[] {
  const excess = entries.length - max
  let seen = 0
  let untilBucket = -Infinity
  for (const e of entries) {
    if (!which(e)) continue
    seen++
    untilBucket = minuteOf(e)
    if (seen > excess + 1) break
  }
  return foldBuckets(
    entries,
    (e) => which(e) && minuteOf(e) <= untilBucket,
    () => untilBucket,
  )
}

function mergeCompacted(entries: HeldEntry[], maxCompacted: number): HeldEntry[] {
  let compacted = entries.filter((e) => e.fact.kind === 'compacted').length
  if (compacted <= maxCompacted) return entries
  const out: HeldEntry[] = []
  let carry: HeldEntry | null = null
  for (const e of entries) {
    if (e.fact.kind !== 'compacted' || compacted <= maxCompacted) {
      out.push(e)
      continue
    }
    if (carry === null) {
      carry = e
      continue
    }
    // The newer one absorbs the older (its id stays the newest of what it stands for).
    const merged = {
      ...e,
      fact: {
        ...(e.fact as Extract<JournalFact, { kind: 'compacted' }>),
        counts: { ...(e.fact as Extract<JournalFact, { kind: 'compacted' }>).counts },
      },
    }
    mergeInto(merged as HeldEntry & { fact: Extract<JournalFact, { kind: 'compacted' }> }, carry)
    out.push(merged)
    carry = null
    compacted--
  }
  if (carry !== null) out.push(carry)
  return out.sort((a, b) => a.id - b.id)
}
