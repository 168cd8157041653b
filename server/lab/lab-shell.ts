// What every dashboard lab does the same way, whatever its backend: the background loops, the
// timeline markers, the throughput/latency series, coalesced snapshots to listeners, and commands
// validated and run one at a time. Lab (embedded log) and KafkaLab (a cluster) add their runtime.

import { type ChartPoint, type CommandName, type CommandResult, type CorrectnessView, type LabSnapshot, parseCommand, type CommandPayload, type TimelineMarker } from '../../lib/lab-protocol.ts'
import { ConfigException, defaultStreamsConfig, type StreamsConfig, withConfigChange } from '../../lib/streams-config.ts'
import type { Time } from '../log/time.ts'
import type { LabController } from './lab-controller.ts'
import { TraceBook } from './snapshot-parts.ts'

const MAX_SERIES = 240
const MAX_MARKERS = 60

/**
 * The streams settings a setConfig asks for, checked by Kafka's rules (throws ConfigException,
 * nothing changed then). A new guarantee without a commit.interval.ms takes that guarantee's
 * Kafka Streams default, as a fresh application would.
 */
export function configAfter(current: StreamsConfig, change: Omit<CommandPayload<'setConfig'>, 'inputRatePerSec' | 'workers' | 'default.deserialization.exception.handler'>): StreamsConfig {
  const next = withConfigChange(current, change)
  const g = change['processing.guarantee']
  if (g && change['commit.interval.ms'] === undefined && g !== current['processing.guarantee']) {
    next['commit.interval.ms'] = withConfigChange(next, { 'commit.interval.ms': defaultStreamsConfig(g)['commit.interval.ms'] })['commit.interval.ms']
  }
  return next
}

export abstract class LabShell implements LabController {
  protected seq = 0
  protected latest!: LabSnapshot
  private readonly listeners = new Set<(s: LabSnapshot) => void>()
  protected series: ChartPoint[] = []
  protected markers: TimelineMarker[] = []
  protected readonly traces = new TraceBook()
  protected correctness: CorrectnessView | null = null
  /** The current runtime's loops; a new runtime gets a new object and the old loops end. */
  protected timers = { stop: false }
  private lastSample = { t: 0, committed: 0 }
  private commandQueue: Promise<unknown> = Promise.resolve()

  constructor(protected readonly time: Time) {}

  /** The full snapshot of this moment. */
  protected abstract build(): LabSnapshot
  /** Runs one validated command; returns a result only to refuse it. */
  protected abstract runCommand(name: CommandName, payload: unknown): Promise<CommandResult | void>
  abstract close(): Promise<void>

  /** Why no command runs now (a lab shutting down), or null. */
  protected refusal(): string | null {
    return null
  }

  /** Calls fn every everyMs until these timers stop; a failed round is skipped, the next one retries. */
  protected async loop(timers: { stop: boolean }, everyMs: number, fn: () => unknown): Promise<void> {
    while (!timers.stop) {
      await this.time.sleep(everyMs)
      if (timers.stop) break
      try {
        await fn()
      } catch {
        // a failed sample, read or snapshot is skipped; the next round retries
      }
    }
  }

  protected mark(kind: TimelineMarker['kind'], label: string, t = this.time.now()): void {
    this.markers.push({ t, kind, label })
    if (this.markers.length > MAX_MARKERS) this.markers.shift()
  }

  /** Forgets what was shown of a previous runtime. */
  protected clearViews(): void {
    this.series = []
    this.markers = []
    this.traces.clear()
    this.correctness = null
  }

  /** Starts the series over for a new runtime (its committed total starts at 0). */
  protected restartSeries(): void {
    this.lastSample = { t: this.time.now(), committed: 0 }
  }

  /** One point of the charts: committed input and visible output per second since the last point. */
  protected addSample(committed: number, visible: { records: number; p50: number | null; p99: number | null; max: number | null }): void {
    const now = this.time.now()
    const dt = (now - this.lastSample.t) / 1000
    this.series.push({
      t: now,
      processedPerSec: dt > 0 ? Math.max(0, Math.round((committed - this.lastSample.committed) / dt)) : 0,
      visibleOutputPerSec: dt > 0 ? Math.round(visible.records / dt) : 0,
      latencyP50Ms: visible.p50,
      latencyP99Ms: visible.p99,
      latencyMaxMs: visible.max,
    })
    this.lastSample = { t: now, committed }
    if (this.series.length > MAX_SERIES) this.series.shift()
  }

  protected publish(): void {
    this.latest = this.build()
    for (const l of this.listeners) l(this.latest)
  }

  snapshot(): LabSnapshot {
    return this.latest
  }

  onSnapshot(listener: (s: LabSnapshot) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Commands run one at a time, in arrival order. */
  execute(name: string, payload: unknown): Promise<CommandResult> {
    const run = this.commandQueue.then(() => this.executeNow(name, payload))
    this.commandQueue = run.catch(() => undefined)
    return run
  }

  /** Settles once the commands queued so far have run. */
  protected commandsSettled(): Promise<unknown> {
    return this.commandQueue
  }

  private async executeNow(name: string, payload: unknown): Promise<CommandResult> {
    const parsed = parseCommand(name, payload)
    if (!parsed.ok) return parsed
    const refused = this.refusal()
    if (refused !== null) return { ok: false, error: refused }
    try {
      const result = await this.runCommand(parsed.name, parsed.payload)
      if (result) return result
      this.publish()
      return { ok: true }
    } catch (e) {
      if (e instanceof ConfigException) return { ok: false, error: e.message }
      return { ok: false, error: `command ${parsed.name} failed: ${e instanceof Error ? e.message : 'internal error'}` }
    }
  }
}
