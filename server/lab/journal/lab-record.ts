// The lab's record of itself: its journal (what happened), the recorder that writes to it, and
// its past frames (what was shown). The Lab feeds it events, commands and snapshots; the timeline's
// markers, the transaction totals and the kill count of each snapshot are read from the journal.

import type { JournalCategory, JournalFact, JournalPage, JournalSpan, LabFrameResponse } from '../../../lib/journal.ts'
import type { LabSnapshot, MarkerKind, TimelineMarker } from '../../../lib/lab-protocol.ts'
import type { Time } from '../../log/time.ts'
import type { LabEvent, LabRuntime, RuntimeWording } from '../../runtime/lab-runtime.ts'
import { FrameStore } from './frame-store.ts'
import { LabJournal, type JournalQuery } from './lab-journal.ts'
import { JournalRecorder } from './journal-recorder.ts'
import type { TxnSink } from '../transaction-board.ts'
import { TransactionHistory } from '../transaction-history.ts'

/**
 * How far from t a frame may be for GET /api/lab/at to answer with it (frames
 * older than 30 minutes are a minute apart).
 */
export const FRAME_GAP_MS = 2 * 60_000

export class LabRecord {
  readonly journal: LabJournal
  readonly recorder: JournalRecorder
  private readonly frames = new FrameStore<LabSnapshot>()
  /** Every ended transaction of the lab's life: statistics, and the latest rows for filtering and export. */
  readonly history: TransactionHistory

  /** @param reachable whether the cluster answers now (an outage mark begins or ends one). */
  constructor(
    time: Time,
    runtime: () => LabRuntime,
    private readonly reachable: () => boolean,
  ) {
    this.journal = new LabJournal(time)
    this.recorder = new JournalRecorder(this.journal, () => ({ wording: runtime().wording, topics: runtime().topics }))
    this.history = new TransactionHistory(time)
  }

  /** A new runtime: the journal's run counts and the history's run statistics start over. */
  beginRun(): void {
    this.recorder.beginRun()
    this.history.beginRun()
  }

  /**
   * The TransactionBoard's sink: each ended transaction goes to the journal and the history; totals are the journal's.
   */
  readonly txns: TxnSink = {
    ended: (t, workerId, held) => {
      this.recorder.txns.ended(t, workerId, held)
      this.history.onEnded(t, workerId)
    },
    counts: () => this.recorder.txns.counts(),
  }

  onEvent(e: LabEvent): void {
    this.recorder.onEvent(e)
  }

  /** A timeline mark goes to the journal, as a typed fact where the kind tells. */
  mark(kind: MarkerKind, label: string, atMs?: number, fact?: JournalFact): void {
    this.recorder.mark(
      kind,
      label,
      atMs,
      fact ?? (kind === 'outage' ? { kind: 'outage', phase: this.reachable() ? 'ended' : 'began' } : undefined),
    )
  }

  /** A guided scenario's start, step or end (marked on the timeline as a config change is). */
  scenario(
    name: string,
    phase: 'started' | 'step' | 'ended',
    label: string,
    verdict?: 'passed' | 'failed' | 'error',
  ): void {
    this.mark('config', label, undefined, { kind: 'scenario', name, phase, ...(verdict ? { verdict } : {}) })
  }

  added(workerId: string, wording: RuntimeWording): void {
    this.mark('worker-added', `${workerId} added${wording.added}`, undefined, { kind: 'worker-added', workerId })
  }

  /** Before each snapshot: a generation gathered, recoveries completed. */
  beforeSnapshot(rt: LabRuntime): void {
    this.recorder.flush(rt.time.now())
    this.recorder.noteRecoveries(rt.tracker.recoveries)
  }

  /** The snapshot's parts read from the journal. */
  parts(): { markers: TimelineMarker[]; journal: JournalSpan; kills: number } {
    return { markers: this.journal.shownMarkers(), journal: this.journal.span(), kills: this.journal.runCount('kill') }
  }

  /** Keeps a frame of what was shown (one a second at most). */
  shown(s: LabSnapshot): void {
    this.frames.offer(s.atMs, s, this.journal.span().fromMs)
  }

  page(q: JournalQuery): JournalPage {
    return this.journal.page(q)
  }

  frameAt(t: number): LabFrameResponse<LabSnapshot> | null {
    return this.frames.frameAt(t, FRAME_GAP_MS)
  }
}

export type { JournalCategory, JournalPage, JournalQuery, LabFrameResponse }
