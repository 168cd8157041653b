// Whether the lab reaches its cluster: an outage is shown while it lasts (and marked on the
// timeline when it begins and ends), and counted after. A runtime on an in-process log never
// reports one.

import type { LabRuntime } from '../runtime/lab-runtime.ts'
import type { BackendHealth } from '../../lib/lab-protocol.ts'
import type { Time } from '../log/time.ts'
import type { LabTimeline } from './lab-timeline.ts'

export class LabHealth {
  private health: BackendHealth

  constructor(
    private readonly time: Time,
    private readonly timeline: LabTimeline,
  ) {
    this.health = { reachable: true, sinceMs: time.now(), error: null, outages: 0, lastOutage: null }
  }

  unreachable(error: string): void {
    if (!this.health.reachable) {
      this.health.error = error
      return
    }
    this.health = {
      reachable: false,
      sinceMs: this.time.now(),
      error,
      outages: this.health.outages + 1,
      lastOutage: this.health.lastOutage,
    }
    this.timeline.mark('outage', `cluster unreachable: ${error.slice(0, 80)}`)
  }

  reachable(): void {
    if (this.health.reachable) return
    const now = this.time.now()
    const from = this.health.sinceMs
    this.health = {
      reachable: true,
      sinceMs: now,
      error: null,
      outages: this.health.outages,
      lastOutage: { fromMs: from, toMs: now },
    }
    this.timeline.mark('outage', `cluster reachable again after ${((now - from) / 1000).toFixed(1)} s`)
  }

  view(): BackendHealth {
    return { ...this.health }
  }

  /** The note shown first while the cluster does not answer, or null. */
  note(cluster: string): string | null {
    if (this.health.reachable) return null
    return (
      `The cluster (${cluster}) does not answer since ${new Date(this.health.sinceMs).toISOString()}: ` +
      `${this.health.error ?? 'no reply'}. Workers retry; figures resume when it is back.`
    )
  }
}

/** The notes a snapshot shows: an outage first, then a load generator that stopped, then the runtime's own. */
export function labNotes(
  rt: Pick<LabRuntime, 'labNotes' | 'notes' | 'loadFailure' | 'clusterAddress'>,
  health: LabHealth,
): string[] {
  const notes = [...rt.labNotes, ...rt.notes]
  const load = rt.loadFailure()
  if (load !== null) notes.unshift(`The load generator stopped: ${load}. Reset the lab to start again.`)
  const outage = rt.clusterAddress === null ? null : health.note(rt.clusterAddress)
  if (outage !== null) notes.unshift(outage)
  return notes
}
