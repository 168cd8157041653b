// The lab's event journal: one append-only, chronological record of everything that happened to the
// lab (lib/journal.ts), across resets and scenarios. Every marker on the timeline, the transaction
// totals and the kill count are read from it, so one fact has one number.
//
// Bounded: the last 30 minutes are kept entry by entry, except committed transactions, kept entry
// by entry for the last 5 minutes (aborts, kills, fencings, faults, config and scenarios for 30);
// older transactions are folded into one compacted entry per minute (journal-compaction.ts), and a
// hard bound of entries holds whatever the rate. (30 minutes of commits entry by entry made the
// one-hour memory bench grow 20% from minutes 5-10 to its end, the journal filling.) Measured (node
// 20, heap used before and after 54,000 transaction entries, partition lists shared as the recorder
// shares them): a transaction entry costs about 210 bytes of heap (550 bytes as JSON). The
// dashboard's default lab (500 records/s, exactly_once, commit.interval.ms 100, 3 workers over 6
// tasks, a producer per task) commits about 59 transactions/s, so 30 minutes are about 106,000
// entries, 22 MB; the hard bound of 150,000 entries is about 32 MB. Past the window, an hour adds 60
// compacted entries. A 34-minute run of that lab (virtual time, a kill every 5 minutes) held 107,500
// entries from minute 31 on, its heap flat at about 134 MB with the frames.

import {
  JOURNAL_CATEGORY_OF,
  type JournalCategory,
  type JournalEntry,
  type JournalFact,
  type JournalKind,
  type JournalLink,
  type JournalPage,
  type JournalSpan,
} from '../../../lib/journal.ts'
import type { MarkerKind, TimelineMarker } from '../../../lib/lab-protocol.ts'
import type { Time } from '../../log/time.ts'
import { compact, countKey, type CompactionBounds, type HeldEntry } from './journal-compaction.ts'

export const JOURNAL_BOUNDS: CompactionBounds = {
  keepMs: 30 * 60_000,
  keepCommitsMs: 5 * 60_000,
  maxEntries: 40_000,
  maxCompacted: 2_000,
}
/** Compaction runs every this many appends (a pass over the journal, about 2 ms at its bound). */
const COMPACT_EVERY = 1_000
export const MAX_PAGE = 2_000
/** Markers shown on the timeline: the latest of the current run. */
const MAX_MARKERS = 60

/** How the timeline shows each kind; kinds absent here have no marker. */
const MARKER_OF: Partial<Record<JournalKind, MarkerKind>> = {
  kill: 'kill',
  pause: 'pause',
  resume: 'resume',
  'worker-added': 'worker-added',
  'worker-stopped': 'stopped',
  'member-expired': 'rebalance',
  fenced: 'fenced',
  'ack-dropped': 'ack-dropped',
  poison: 'config',
  config: 'config',
  reset: 'reset',
  scenario: 'config',
  outage: 'outage',
  recovered: 'recovered',
  broker: 'outage',
}

export function markerKindOf(fact: JournalFact): MarkerKind | null {
  if (fact.kind === 'note') return fact.marker ?? null
  // A scenario's narrative lines are in the event log; the timeline marks its start and end only.
  if (fact.kind === 'scenario' && fact.phase === 'step') return null
  return MARKER_OF[fact.kind] ?? null
}

export interface JournalQuery {
  after: number
  limit: number
  categories: readonly JournalCategory[] | null
  /**
   * 'none' leaves committed transactions out (aborted ones stay): what a page that lists no commits
   * reads, commits being most of a busy journal. Default 'all'.
   */
  commits?: 'all' | 'none'
}

/** A transaction's line in the event log. */
export function txnLabel(f: Extract<JournalFact, { kind: 'txn' }>): string {
  const why = f.cause === null ? '' : ` (${f.cause})`
  const where = f.partitions.length > 0 ? ` on ${f.partitions.join(', ')}` : ''
  return (
    `transaction ${f.outcome}${why}: ${f.transactionalId} epoch ${f.epoch}${where}; ${f.outputRecords} output, ` +
    `${f.changelogRecords} changelog, ${f.offsetsCommitted} offsets`
  )
}

export class LabJournal {
  private entries: HeldEntry[] = []
  private nextId = 1
  private sinceCompaction = 0
  private readonly startedAtMs: number
  /** Counts of the current run (since the last runtime started), by kind and transaction outcome. */
  private run = new Map<string, number>()
  private markers: TimelineMarker[] = []

  constructor(
    private readonly time: Time,
    private readonly bounds: CompactionBounds = JOURNAL_BOUNDS,
  ) {
    this.startedAtMs = time.now()
  }

  /** Appends one fact; atMs defaults to now. Returns the entry's id. */
  append(fact: JournalFact, label: string | null, o: { atMs?: number; links?: JournalLink[] } = {}): number {
    const atMs = o.atMs ?? this.time.now()
    const e: HeldEntry = { id: this.nextId++, atMs, fact }
    if (label !== null && fact.kind !== 'txn') e.label = label
    if (o.links && o.links.length > 0) e.links = o.links
    this.entries.push(e)
    const key = countKey(fact)
    this.run.set(key, (this.run.get(key) ?? 0) + 1)
    const marker = markerKindOf(fact)
    if (marker !== null) {
      this.markers.push({ t: atMs, kind: marker, label: labelOf(e) })
      if (this.markers.length > MAX_MARKERS) this.markers.shift()
    }
    if (++this.sinceCompaction >= COMPACT_EVERY) this.compact()
    return e.id
  }

  /** A new runtime: the run's counts and markers start over (the entries stay). */
  beginRun(): void {
    this.run = new Map()
    this.markers = []
  }

  compact(): void {
    this.sinceCompaction = 0
    this.entries = compact(this.entries, this.time.now(), this.bounds)
  }

  /** Entries of a kind in the current run; transactions by outcome ('txn:committed', 'txn:aborted'). */
  runCount(key: JournalKind | 'txn:committed' | 'txn:aborted' | 'txn:aborted:teardown'): number {
    return this.run.get(key) ?? 0
  }

  /** The transactions of the current run as the dashboard counts them (a teardown's aborts are not faults). */
  txnCounts(): { committed: number; aborted: number } {
    return { committed: this.runCount('txn:committed'), aborted: this.runCount('txn:aborted') }
  }

  /** The timeline's markers: a view of the run's entries. */
  shownMarkers(): TimelineMarker[] {
    return [...this.markers]
  }

  span(): JournalSpan {
    const first = this.entries[0]
    const last = this.entries.at(-1)
    return {
      sinceMs: this.startedAtMs,
      fromMs: first ? Math.min(first.atMs, this.startedAtMs) : this.startedAtMs,
      toMs: this.time.now(),
      lastId: last?.id ?? 0,
      size: this.entries.length,
    }
  }

  /** Entries with ids above `after`, oldest first, of the categories asked for. */
  page(q: JournalQuery): JournalPage {
    const limit = Math.max(1, Math.min(MAX_PAGE, q.limit))
    const wanted = q.categories === null ? null : new Set(q.categories)
    const out: JournalEntry[] = []
    let more = false
    for (let i = this.firstAfter(q.after); i < this.entries.length; i++) {
      const e = this.entries[i]!
      if (wanted !== null && !wanted.has(categoryOf(e.fact))) continue
      if (q.commits === 'none' && e.fact.kind === 'txn' && e.fact.outcome === 'committed') continue
      if (out.length === limit) {
        more = true
        break
      }
      out.push(view(e))
    }
    return { span: this.span(), entries: out, more }
  }

  /** Every entry held, oldest first (tests, scenario figures). */
  all(): JournalEntry[] {
    return this.entries.map(view)
  }

  private firstAfter(id: number): number {
    let lo = 0
    let hi = this.entries.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.entries[mid]!.id <= id) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

function categoryOf(fact: JournalFact): JournalCategory {
  // A teardown's abort is the lab's own doing: listed with the transactions, never as a fault.
  return JOURNAL_CATEGORY_OF[fact.kind]
}

function labelOf(e: HeldEntry): string {
  if (e.label !== undefined) return e.label
  const f = e.fact
  if (f.kind === 'txn') return txnLabel(f)
  if (f.kind === 'compacted')
    return (
      `${Object.values(f.counts).reduce<number>((a, n) => a + (n ?? 0), 0)} older entries compacted (${f.records} ` +
      `records)`
    )
  return f.kind
}

function view(e: HeldEntry): JournalEntry {
  const out: JournalEntry = { id: e.id, atMs: e.atMs, category: categoryOf(e.fact), label: labelOf(e), fact: e.fact }
  if (e.links) out.links = e.links
  else if (e.fact.kind === 'txn') out.links = e.fact.partitions.flatMap(linkOf)
  return out
}

/** A partition named 'topic-N' as a link, for the application's own topics. */
function linkOf(partition: string): JournalLink[] {
  const m = /^(.*)-(\d+)$/.exec(partition)
  if (!m) return []
  const topic = m[1] === 'input' || m[1] === 'output' ? m[1] : m[1]!.endsWith('changelog') ? 'changelog' : null
  return topic === null ? [] : [{ topic, partition: Number(m[2]) }]
}
