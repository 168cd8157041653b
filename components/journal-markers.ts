// The scrubber's markers, read from the journal: kills, aborts, fencings, faults, config changes and
// scenario steps, placed along the journal's span. Markers closer than a few pixels merge into one
// (shown as the most telling of them, its label saying how many), so none overlaps another.

import type { JournalEntry, JournalSpan } from '../lib/journal.ts'
import type { MarkerKind as ChartMarkerKind } from '../lib/lab-protocol.ts'

export type MarkerKind = 'kill' | 'fence' | 'abort' | 'fault' | 'config' | 'scenario'

/** Most telling first: a merged marker shows its first kind present here. */
export const MARKER_KINDS: readonly MarkerKind[] = ['kill', 'fence', 'abort', 'fault', 'config', 'scenario']

export const MARKER_NAMES: Record<MarkerKind, string> = {
  kill: 'kill',
  fence: 'fencing',
  abort: 'abort',
  fault: 'fault',
  config: 'config change',
  scenario: 'scenario',
}

/** The marker an entry makes, or null for entries that do not mark the timeline (commits, generations). */
export function markerKind(e: JournalEntry): MarkerKind | null {
  switch (e.fact.kind) {
    case 'kill':
      return 'kill'
    case 'fenced':
      return 'fence'
    case 'txn':
      return e.fact.outcome === 'aborted' && e.fact.cause !== 'teardown' ? 'abort' : null
    case 'pause':
    case 'poison':
    case 'ack-dropped':
      return 'fault'
    case 'outage':
      return e.fact.phase === 'began' ? 'fault' : null
    case 'config':
    case 'reset':
      return 'config'
    case 'scenario':
      return 'scenario'
    case 'note':
      return e.fact.marker ? (NOTE_MARKERS[e.fact.marker] ?? null) : null
    default:
      return null
  }
}

/** A note (a runtime's notice, a mark with no typed fact) marks the timeline as its chart marker says. */
const NOTE_MARKERS: Partial<Record<ChartMarkerKind, MarkerKind>> = {
  kill: 'kill',
  fenced: 'fence',
  config: 'config',
  reset: 'config',
  pause: 'fault',
  'ack-dropped': 'fault',
  outage: 'fault',
}

export interface ScrubMarker {
  kind: MarkerKind
  /** Where it sits, 0-100 along the span. */
  pct: number
  /** The moment clicking it jumps to: its most telling entry's. */
  atMs: number
  /** The entry that moment belongs to. */
  entryId: number
  /** How many entries it stands for. */
  count: number
  /** Its tooltip and accessible name. */
  label: string
}

/** Position 0-100 of `atMs` along the span (clamped). */
export function spanPct(atMs: number, span: Pick<JournalSpan, 'fromMs' | 'toMs'>): number {
  const width = span.toMs - span.fromMs
  if (width <= 0) return 100
  return Math.min(100, Math.max(0, ((atMs - span.fromMs) / width) * 100))
}

interface Cluster {
  startPct: number
  entries: { e: JournalEntry; kind: MarkerKind }[]
}

function toMarker(c: Cluster, pctOf: (atMs: number) => number): ScrubMarker {
  const rank = (k: MarkerKind) => MARKER_KINDS.indexOf(k)
  const lead = c.entries.reduce((best, x) => (rank(x.kind) < rank(best.kind) ? x : best))
  const more = c.entries.length - 1
  return {
    kind: lead.kind,
    pct: pctOf(lead.e.atMs),
    atMs: lead.e.atMs,
    entryId: lead.e.id,
    count: c.entries.length,
    label: more > 0 ? `${lead.e.label} (+${more} more here)` : lead.e.label,
  }
}

/**
 * Markers for the entries within the span, oldest first; entries within `minGapPct` of a marker's
 * first entry join it.
 */
export function placeMarkers(
  entries: readonly JournalEntry[],
  span: Pick<JournalSpan, 'fromMs' | 'toMs'>,
  minGapPct = 0.8,
): ScrubMarker[] {
  const pctOf = (atMs: number) => spanPct(atMs, span)
  const clusters: Cluster[] = []
  const sorted = entries
    .filter((e) => e.atMs >= span.fromMs && e.atMs <= span.toMs)
    .sort((a, b) => a.atMs - b.atMs || a.id - b.id)
  for (const e of sorted) {
    const kind = markerKind(e)
    if (!kind) continue
    const pct = pctOf(e.atMs)
    const last = clusters[clusters.length - 1]
    if (last && pct - last.startPct < minGapPct) last.entries.push({ e, kind })
    else clusters.push({ startPct: pct, entries: [{ e, kind }] })
  }
  return clusters.map((c) => toMarker(c, pctOf))
}

/** The marker before or after `atMs` (for the scrubber's previous/next buttons), or null. */
export function adjacentMarker(
  markers: readonly ScrubMarker[],
  atMs: number,
  direction: 'previous' | 'next',
): ScrubMarker | null {
  if (direction === 'next') return markers.find((m) => m.atMs > atMs) ?? null
  for (let i = markers.length - 1; i >= 0; i--) if (markers[i]!.atMs < atMs) return markers[i]!
  return null
}
