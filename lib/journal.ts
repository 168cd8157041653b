// The lab's event journal, as the dashboard and the REST API see it: one chronological record of
// everything that happened to a lab (kills and the step they hit, pauses, group generations,
// fencings, restores, transactions with what they held, dropped acks, poison records, config
// changes, scenario steps, outages). Every marker, narrative figure and event-log row is read from
// it, so one fact has one number. Isomorphic and pure: types and small helpers only.

import type { Step } from './five-steps.ts'
import type { PartitionLink } from './log-range.ts'
import type { MarkerKind } from './lab-protocol.ts'

/** The event log panel's filters. */
export const JOURNAL_CATEGORIES = ['kills', 'transactions', 'group', 'config', 'faults', 'scenario'] as const
export type JournalCategory = (typeof JOURNAL_CATEGORIES)[number]

/** Where an entry's evidence lives: a partition and, when known, the offsets it is about. */
/** Where an entry points (lib/log-range.ts: offsets half-open, [fromOffset, toOffset)). */
export type JournalLink = PartitionLink

/** What an entry says, by kind. Figures are counts of records unless named otherwise. */
export type JournalFact =
  | { kind: 'kill'; workerId: string; step: Step | null }
  | { kind: 'pause'; workerId: string }
  | { kind: 'resume'; workerId: string }
  | { kind: 'worker-added'; workerId: string }
  /** reason crash: it ended without the lab ending it (its process exited, or its engine failed), error its cause. */
  | {
      kind: 'worker-stopped'
      workerId: string
      reason: 'scenario' | 'config' | 'error' | 'removed' | 'crash'
      error?: string
      exitCode?: number | null
      signal?: string | null
    }
  | { kind: 'generation'; generation: number; members: string[]; assignment: Record<string, string[]> }
  | { kind: 'member-expired'; memberId: string }
  | { kind: 'fenced'; workerId: string; by: 'epoch' | 'generation'; transactionalId?: string; detail: string }
  | { kind: 'restore'; taskId: string; workerId: string; fromOffset: number; toOffset: number; records: number }
  | {
      kind: 'txn'
      outcome: 'committed' | 'aborted'
      transactionalId: string
      producerId: number
      epoch: number
      partitions: string[]
      outputRecords: number
      changelogRecords: number
      offsetsCommitted: number
      beginMs: number
      /** Why it aborted (null for a commit). */
      cause: 'fenced' | 'crash' | 'timeout' | 'error' | 'teardown' | null
      /** The worker that ran it, when known. */
      workerId?: string
    }
  | { kind: 'ack-dropped'; producerId: number; epoch: number; sequences: number[] }
  | { kind: 'poison'; count: number; handler: string }
  | { kind: 'config'; changes: Record<string, string | number | boolean> }
  | { kind: 'reset'; applicationId: string }
  | { kind: 'scenario'; name: string; phase: 'started' | 'step' | 'ended'; verdict?: 'passed' | 'failed' | 'error' }
  | { kind: 'outage'; phase: 'began' | 'ended'; error?: string }
  | { kind: 'recovered'; workerId: string; recoveryMs: number }
  /**
   * An operator's abort of a hanging transaction: its records, in [fromOffset, toOffset) (toOffset: the
   * HW before the abort), released; the LSO and HW after.
   */
  | {
      kind: 'hanging-aborted'
      topic: string
      partition: number
      producerId: number
      epoch: number
      transactionalId: string | null
      fromOffset: number
      toOffset: number
      lastStableOffset: number
      highWatermark: number
    }
  /** Fault: a hanging transaction written on a partition. */
  | { kind: 'hanging-injected'; topic: string; partition: number; producerId: number; firstOffset: number }
  /** A broker of the lab's cluster killed (SIGKILL) or restarted from its card; roles: what it did for the lab then. */
  | {
      kind: 'broker'
      action: 'killed' | 'restarted' | 'restart-failed'
      brokerId: number
      pid: number | null
      roles: string[]
    }
  /** marker: how the timeline shows it (a runtime's notice names its marker). */
  | { kind: 'note'; text: string; marker?: MarkerKind }
  /** Older entries compacted into one: how many of each kind it stands for. */
  | { kind: 'compacted'; counts: Partial<Record<string, number>>; records: number; untilMs: number }

export type JournalKind = JournalFact['kind']

export interface JournalEntry {
  /** Strictly increasing within one lab, never reused (also after a reset). */
  id: number
  atMs: number
  category: JournalCategory
  /** One line for a reader, in the dashboard's words. */
  label: string
  fact: JournalFact
  links?: JournalLink[]
}

/** The span the journal covers, carried in each snapshot (the entries themselves are fetched). */
export interface JournalSpan {
  /** When this journal began: a server that restarted serves another one, numbered from 1 again. */
  sinceMs: number
  fromMs: number
  toMs: number
  /** Id of the newest entry (0: none yet). */
  lastId: number
  /** Entries held, compacted ones counted once. */
  size: number
}

/** GET /api/lab/journal?after=ID&limit=N&category=a,b */
export interface JournalPage {
  span: JournalSpan
  entries: JournalEntry[]
  /** More entries after the last one returned. */
  more: boolean
}

/** GET /api/lab/at?t=MS: the lab as it was shown at (or just after) that moment. */
export interface LabFrameResponse<S> {
  /** The instant the frame was taken. */
  frameAtMs: number
  snapshot: S
}

export const JOURNAL_CATEGORY_OF: Record<JournalKind, JournalCategory> = {
  kill: 'kills',
  pause: 'faults',
  resume: 'faults',
  'worker-added': 'group',
  'worker-stopped': 'kills',
  generation: 'group',
  'member-expired': 'group',
  fenced: 'group',
  restore: 'group',
  txn: 'transactions',
  'ack-dropped': 'faults',
  poison: 'faults',
  config: 'config',
  reset: 'config',
  scenario: 'scenario',
  outage: 'faults',
  recovered: 'kills',
  'hanging-aborted': 'transactions',
  'hanging-injected': 'faults',
  broker: 'faults',
  note: 'config',
  compacted: 'transactions',
}
