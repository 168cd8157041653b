// What the http layer (socket.io, REST) and the CLI need from a running lab.

import type { CommandResult, LabSnapshot } from '../../lib/lab-protocol.ts'

export interface LabController {
  /** The latest full snapshot (cheap: built at most every snapshot interval). */
  snapshot(): LabSnapshot
  /** Called with each coalesced snapshot (10-20 a second at most). Returns an unsubscribe function. */
  onSnapshot(listener: (s: LabSnapshot) => void): () => void
  /** Runs a validated command; never throws: errors come back as { ok: false, error }. */
  execute(name: string, payload: unknown): Promise<CommandResult>
  close(): Promise<void>
}
