// What the http layer (socket.io, REST) and the CLI need from a running lab.

import type { CommandResult, LabSnapshot } from '../../lib/lab-protocol.ts'
import type { JournalCategory, JournalPage, LabFrameResponse } from '../../lib/journal.ts'
import type { MessagePage, MessageQuery } from '../../lib/message-browser.ts'

export interface LabController {
  /** The latest full snapshot (cheap: built at most every snapshot interval). */
  snapshot(): LabSnapshot
  /** Called with each coalesced snapshot (10-20 a second at most). Returns an unsubscribe function. */
  onSnapshot(listener: (s: LabSnapshot) => void): () => void
  /** Runs a validated command; never throws: errors come back as { ok: false, error }. */
  execute(name: string, payload: unknown): Promise<CommandResult>
  close(): Promise<void>
  /** The journal's entries with ids above `after`, oldest first (absent: the lab keeps no journal). */
  journalPage?(q: { after: number; limit: number; categories: readonly JournalCategory[] | null }): JournalPage
  /** The frame shown at (or just after) t, else the nearest; null when none is near. */
  frameAt?(t: number): LabFrameResponse<LabSnapshot> | null
  /**
   * The message browser: a page of one lab topic's stored records, read now (absent: this lab offers none).
   * `gone`: the query named a lab that no longer runs (its records cannot be read).
   */
  messages?(q: MessageQuery): Promise<{ ok: true; value: MessagePage } | { ok: false; error: string; gone?: boolean }>
  /**
   * Ended transactions a filter selects, with statistics and the window the rows
   * cover (absent: the lab keeps no history).
   */
  transactionHistory?(
    filter: import('./transaction-history.ts').TxnHistoryFilter,
  ): import('./transaction-history.ts').TxnHistoryPage
}
