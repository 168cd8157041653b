// A finished scenario run's result pinned on the dashboard (LabSnapshot.evidence), and the links
// from its claims to the partition, offsets and moment they are about, in the lab they were in.

import type { RecordRange } from './log-range.ts'

/**
 * One lab the dashboard ran: each start, each reset and each lab a scenario starts is a new one,
 * with its own logs. Offsets name records only within a lab, so a link names its lab too.
 */
export interface LabIdentity {
  /** Unique across the server's labs and its restarts: the server's start (base 36) and the generation. */
  id: string
  /** The server's first lab is 1; every reset and every lab a scenario starts adds one. */
  generation: number
  /** The application.id it ran (on Kafka each lab has its own; the embedded log's is always the same). */
  applicationId: string
  startedAtMs: number
}

/** A lab id as a link names it: what LabIdentity.id may hold (checked where a request names one). */
export const LAB_ID_PATTERN = /^[a-z0-9]{1,16}-\d{1,9}$/

/**
 * Where a claim's evidence is: a partition, its records (lib/log-range.ts: half-open,
 * [fromOffset, toOffset)) and the moment, to jump the views there.
 */
export interface EvidenceLink extends RecordRange {
  label: string
  /** The moment the claim is about (a kill, an abort, a fencing), for the time control. */
  atMs: number
  /** The id of the lab whose logs hold the records (absent: a link made before labs were named). */
  lab?: string
}

/**
 * Whether the records a card links to can still be read:
 * - kept: its lab runs, and retention keeps them until `untilMs` (EVIDENCE_PINNED_MS after the run);
 * - released: its lab runs, retention no longer holds them back since `sinceMs` (they go when the
 *   log's size bound reaches them);
 * - gone: its lab no longer runs (a reset or another scenario replaced it), or retention deleted
 *   every one of them; `why` says which.
 */
export type EvidenceRecords =
  | { state: 'kept'; untilMs: number }
  | { state: 'released'; sinceMs: number }
  | { state: 'gone'; sinceMs: number; why: string }

/** A finished scenario run's result, pinned on the dashboard until dismissed. */
export interface EvidenceCard {
  /** Unique within the lab (scenario name and run number). */
  id: string
  name: string
  title: string
  status: 'passed' | 'failed' | 'error'
  startedAtMs: number
  endedAtMs: number
  expectations: { claim: string; holds: boolean; undecided?: string }[]
  /** The figures the narrative quotes, by name, read from the journal and the validator at the end. */
  figures: Record<string, number>
  conclusion: string | null
  error: string | null
  links: EvidenceLink[]
  /** The lab its links point into (null: none known). */
  lab?: LabIdentity | null
  /** Whether its links' records can still be read. */
  records?: EvidenceRecords
}

/** How a lab is named to a reader: "lab 3" (with its application.id where that tells labs apart). */
export function labName(lab: Pick<LabIdentity, 'generation'>): string {
  return `lab ${lab.generation}`
}
