// One experiment at a time inside the server: start it, watch it, cancel it. The running record is
// kept in memory for polling and written to the store whenever a repetition completes and at the end.

import type { ExperimentRecord, SweepRequest, SweepSettings } from '../../lib/experiment-protocol.ts'
import type { Time } from '../log/time.ts'
import { ExperimentStore } from './experiment-store.ts'
import { AVAILABLE_SWEEP_BACKENDS, runSweep } from './sweep-runner.ts'

export type StartResult = { ok: true; record: ExperimentRecord } | { ok: false; status: 409 | 501; error: string }

export interface ExperimentServiceOptions {
  store?: ExperimentStore
  settings?: Partial<SweepSettings>
  time?: Time
  log?: (msg: string) => void
}

export class ExperimentService {
  readonly store: ExperimentStore
  private running: { record: ExperimentRecord; abort: AbortController; done: Promise<void> } | null = null
  private last: ExperimentRecord | null = null
  /** Saves in order, one at a time, so an older progress record never overwrites the final one. */
  private saving: Promise<void> = Promise.resolve()

  constructor(private readonly options: ExperimentServiceOptions = {}) {
    this.store = options.store ?? new ExperimentStore()
  }

  get backends(): readonly string[] {
    return AVAILABLE_SWEEP_BACKENDS
  }

  /** The running experiment, or else the last one this server ran (null if none). */
  current(): ExperimentRecord | null {
    return this.running?.record ?? this.last
  }

  isRunning(): boolean {
    return this.running !== null
  }

  start(request: SweepRequest): StartResult {
    if (this.running) return { ok: false, status: 409, error: `experiment ${this.running.record.id} is running; cancel it first` }
    if (!(AVAILABLE_SWEEP_BACKENDS as readonly string[]).includes(request.backend)) {
      return { ok: false, status: 501, error: `backend ${request.backend} is not available for experiments yet; use embedded` }
    }
    const abort = new AbortController()
    let saved = -1
    let first: ExperimentRecord | null = null
    const onProgress = (r: ExperimentRecord) => {
      if (!first) first = r
      if (this.running) this.running.record = r
      if (r.progress.done !== saved || r.status !== 'running') {
        saved = r.progress.done
        this.save(r)
      }
    }
    const run = runSweep({ request, settings: this.options.settings, time: this.options.time, signal: abort.signal, onProgress })
    // runSweep reports its first record synchronously, before its first await.
    const record = first!
    const done = run.then(
      async (final) => {
        this.last = final
        this.save(final)
        await this.saving
      },
      (e: unknown) => {
        this.last = this.running?.record ?? null
        if (this.last) this.save(this.last)
        this.options.log?.(`experiment failed: ${e instanceof Error ? e.message : String(e)}`)
      },
    ).finally(() => {
      this.running = null
    })
    this.running = { record, abort, done }
    return { ok: true, record }
  }

  private save(r: ExperimentRecord): void {
    this.saving = this.saving
      .then(() => this.store.save(r))
      .catch((e: unknown) => this.options.log?.(`saving experiment ${r.id} failed: ${e instanceof Error ? e.message : String(e)}`))
  }

  /** Cancels the running experiment; resolves once it has stopped. False when none was running. */
  async cancel(): Promise<boolean> {
    const r = this.running
    if (!r) return false
    r.abort.abort()
    await r.done
    return true
  }

  /** Waits for the running experiment, if any, to finish. */
  async settle(): Promise<void> {
    await this.running?.done
  }
}
