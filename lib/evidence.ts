// A finished scenario run's result pinned on the dashboard (LabSnapshot.evidence), and the links
// from its claims to the partition, offsets and moment they are about.

import type { RecordRange } from './log-range.ts'

/**
 * Where a claim's evidence is: a partition, its records (lib/log-range.ts: half-open,
 * [fromOffset, toOffset)) and the moment, to jump the views there.
 */
export interface EvidenceLink extends RecordRange {
  label: string
  /** The moment the claim is about (a kill, an abort, a fencing), for the time control. */
  atMs: number
}

/** A finished scenario run's result, pinned on the dashboard until dismissed. */
export interface EvidenceCard {
  /** Unique within the lab (scenario name and run number). */
  id: string
  name: string
  title: string
  status: 'passed' | 'failed' | 'error'
  startedAtMs: number
  endedAtMs: number
  expectations: { claim: string; holds: boolean }[]
  /** The figures the narrative quotes, by name, read from the journal and the validator at the end. */
  figures: Record<string, number>
  conclusion: string | null
  error: string | null
  links: EvidenceLink[]
}
