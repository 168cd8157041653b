// The server's observers for the /observe page (dashboard mode of `eoscope observe`): one
// ApplicationObserver per target, over one shared read-only connection to the cluster. A target's
// observer keeps its state between samples (the generations read so far, the marker scans, the
// validator's ledger), so each sample reads only what is new. Samples of one target are taken one
// at a time and at most one per minIntervalMs: any number of browsers watching one application
// cost the cluster one sample a second. At most maxObservers targets are kept; the least recently
// asked-for one is dropped first.

import {
  ApplicationObserver,
  type ApplicationSample,
  type ObserveSource,
  type ObserveTarget,
} from './application-observer.ts'

export interface ObserverRegistryOptions {
  maxObservers?: number
  minIntervalMs?: number
  now?: () => number
}

interface Entry {
  observer: ApplicationObserver
  last: ApplicationSample | null
  lastAtMs: number
  pending: Promise<ApplicationSample> | null
}

export class ObserverRegistry {
  private readonly entries = new Map<string, Entry>()
  private readonly maxObservers: number
  private readonly minIntervalMs: number
  private readonly now: () => number

  constructor(
    private readonly source: ObserveSource,
    options: ObserverRegistryOptions = {},
  ) {
    this.maxObservers = Math.max(1, options.maxObservers ?? 8)
    this.minIntervalMs = options.minIntervalMs ?? 1_000
    this.now = options.now ?? Date.now
  }

  /** The target's latest sample: a new one when the last is older than minIntervalMs. */
  sample(target: ObserveTarget): Promise<ApplicationSample> {
    const key = JSON.stringify([
      target.applicationId,
      [...target.input].sort(),
      [...target.output].sort(),
      target.validation ?? null,
    ])
    let entry = this.entries.get(key)
    if (entry) this.entries.delete(key)
    else
      entry = {
        observer: new ApplicationObserver(this.source, target, this.now),
        last: null,
        lastAtMs: 0,
        pending: null,
      }
    this.entries.set(key, entry)
    while (this.entries.size > this.maxObservers) this.entries.delete(this.entries.keys().next().value!)
    if (entry.pending) return entry.pending
    if (entry.last && this.now() - entry.lastAtMs < this.minIntervalMs) return Promise.resolve(entry.last)
    const e = entry
    e.pending = e.observer.sample().then(
      (s) => {
        e.last = s
        e.lastAtMs = this.now()
        e.pending = null
        return s
      },
      (err: unknown) => {
        e.pending = null
        throw err
      },
    )
    return e.pending
  }

  get size(): number {
    return this.entries.size
  }
}
