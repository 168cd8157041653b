// One experiment at a time inside the server: start it, watch it, cancel it. The running record is
// kept in memory for polling and written to the store whenever a repetition completes and at the end.
// Experiments run on the embedded log, or on Kafka when the server knows brokers (KAFKA_BROKERS),
// with TLS and SASL from KAFKA_SSL* and KAFKA_SASL_* (server/log/kafka/client-security.ts).

import type { ExperimentRecord, SweepRequest, SweepSettings } from '../../lib/experiment-protocol.ts'
import type { Time } from '../log/time.ts'
import { kafkaSecurityFromEnv } from '../log/kafka/client-security.ts'
import { ExperimentStore } from './experiment-store.ts'
import { runSweep, sweepUnavailableReason, type SweepKafkaTarget } from './sweep-runner.ts'

export type StartResult = { ok: true; record: ExperimentRecord } | { ok: false; status: 400 | 409 | 501; error: string }

/** KAFKA_BROKERS as a list of HOST:PORT; null when unset or empty. Throws on a malformed entry. */
export function brokersFromEnv(value: string | undefined = process.env.KAFKA_BROKERS): string[] | null {
  const brokers = (value ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0)
  if (brokers.length === 0) return null
  for (const b of brokers)
    if (!/^[^\s:]+:\d{1,5}$/.test(b)) throw new Error(`KAFKA_BROKERS: ${JSON.stringify(b)} is not HOST:PORT`)
  return brokers
}

export interface ExperimentServiceOptions {
  store?: ExperimentStore
  settings?: Partial<SweepSettings>
  time?: Time
  log?: (msg: string) => void
  /** The cluster for kafka experiments; default: KAFKA_BROKERS, TLS and SASL from the environment; null: none. */
  kafka?: SweepKafkaTarget | null
}

export class ExperimentService {
  readonly store: ExperimentStore
  private running: { record: ExperimentRecord; abort: AbortController; done: Promise<void> } | null = null
  private last: ExperimentRecord | null = null
  /** Saves in order, one at a time, so an older progress record never overwrites the final one. */
  private saving: Promise<void> = Promise.resolve()

  readonly kafka: SweepKafkaTarget | null
  /** The environment names Kafka but its settings are malformed (the details are in the log only). */
  private readonly kafkaMisconfigured: boolean = false

  constructor(private readonly options: ExperimentServiceOptions = {}) {
    this.store = options.store ?? new ExperimentStore()
    if (options.kafka !== undefined) this.kafka = options.kafka
    else {
      try {
        const brokers = brokersFromEnv()
        this.kafka = brokers ? { brokers, security: kafkaSecurityFromEnv() } : null
      } catch (e) {
        this.kafka = null
        this.kafkaMisconfigured = true
        options.log?.(`kafka experiments unavailable: ${e instanceof Error ? e.message : String(e)}`)
      }
    }
  }

  /** Why kafka is unavailable when the settings, not their absence, are at fault. */
  private get misconfiguredReason(): string | null {
    return this.kafkaMisconfigured
      ? "backend kafka is unavailable: the server's Kafka settings (KAFKA_BROKERS, KAFKA_SSL*, KAFKA_SASL_*) are " +
          'invalid; its log says why'
      : null
  }

  /** The backends experiments can run on here: kafka only when brokers are known. */
  get backends(): readonly string[] {
    return this.kafka ? ['embedded', 'kafka'] : ['embedded']
  }

  /** Why a backend cannot be chosen here (what the page shows beside it). */
  get unavailableBackends(): Record<string, string> {
    const kafka = this.misconfiguredReason ?? sweepUnavailableReason({ backend: 'kafka', guarantees: [] }, this.kafka)
    return kafka === null ? {} : { kafka }
  }

  /** The running experiment, or else the last one this server ran (null if none). */
  current(): ExperimentRecord | null {
    return this.running?.record ?? this.last
  }

  isRunning(): boolean {
    return this.running !== null
  }

  start(request: SweepRequest): StartResult {
    if (this.running)
      return { ok: false, status: 409, error: `experiment ${this.running.record.id} is running; cancel it first` }
    const unavailable =
      (request.backend === 'kafka' ? this.misconfiguredReason : null) ?? sweepUnavailableReason(request, this.kafka)
    if (unavailable !== null) {
      // No brokers: this server cannot run it (501); exactly_once_v2 on Kafka: the request is at fault (400).
      return { ok: false, status: request.backend === 'kafka' && this.kafka ? 400 : 501, error: unavailable }
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
    const run = runSweep({
      request,
      settings: this.options.settings,
      time: this.options.time,
      signal: abort.signal,
      onProgress,
      kafka: this.kafka,
    })
    // runSweep reports its first record synchronously, before its first await.
    const record = first!
    const done = run
      .then(
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
      )
      .finally(() => {
        this.running = null
      })
    this.running = { record, abort, done }
    return { ok: true, record }
  }

  private save(r: ExperimentRecord): void {
    this.saving = this.saving
      .then(() => this.store.save(r))
      .catch((e: unknown) =>
        this.options.log?.(`saving experiment ${r.id} failed: ${e instanceof Error ? e.message : String(e)}`),
      )
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
