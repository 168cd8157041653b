// Whether the records an evidence card links to can still be read (lib/evidence.ts, EvidenceRecords):
// kept while its lab runs and retention holds them back (EVIDENCE_PINNED_MS after the run), released
// after that, gone once its lab no longer runs or retention deleted every one of them. Pure: the lab
// says which lab runs, how the others ended and where each partition's log starts now.

import type { EvidenceCard, EvidenceRecords } from '../../lib/evidence.ts'
import type { LabTopicRole } from '../../lib/log-range.ts'
import type { EndedLab } from './lab-identity.ts'

/** How long retention keeps the records a card links to, while its lab runs. */
export const EVIDENCE_PINNED_MS = 30 * 60_000

export interface RecordsView {
  nowMs: number
  /** The id of the lab running now (null: none). */
  running: string | null
  /** How an earlier lab ended, if remembered. */
  ended(id: string): EndedLab | undefined
  /** The running lab's log start offset of a partition, when it has been read. */
  logStart(topic: LabTopicRole, partition: number): number | undefined
}

/**
 * The card's records now; `before`: what it said last (a deletion keeps the moment it was first seen).
 * Undefined for a card with no lab recorded (made by a shelf that names no labs).
 */
export function evidenceRecords(
  card: EvidenceCard,
  view: RecordsView,
  before?: EvidenceRecords,
): EvidenceRecords | undefined {
  if (card.lab === undefined) return undefined
  if (card.lab === null) return { state: 'gone', sinceMs: card.endedAtMs, why: 'it was replaced before the run ended' }
  if (card.lab.id !== view.running) {
    const e = view.ended(card.lab.id)
    return e === undefined
      ? { state: 'gone', sinceMs: card.endedAtMs, why: 'it no longer runs' }
      : { state: 'gone', sinceMs: e.endedAtMs, why: e.how }
  }
  const deleted =
    card.links.length > 0 && card.links.every((l) => (view.logStart(l.topic, l.partition) ?? 0) >= l.toOffset)
  if (deleted)
    return {
      state: 'gone',
      sinceMs: before?.state === 'gone' ? before.sinceMs : view.nowMs,
      why: 'retention deleted them',
    }
  const untilMs = card.endedAtMs + EVIDENCE_PINNED_MS
  return view.nowMs <= untilMs ? { state: 'kept', untilMs } : { state: 'released', sinceMs: untilMs }
}

export function sameRecords(a: EvidenceRecords | undefined, b: EvidenceRecords | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}
