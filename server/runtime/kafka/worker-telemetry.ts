// The telemetry topic as the worker-process runtime reads it: every worker's envelopes (its status
// and engine events since its last flush), turned into the runtime port's typed events. Workers this
// runtime did not start (other machines following the lab) show up here as remote workers.

import type { Step } from '../../../lib/lab-protocol.ts'
import type { EngineEvent } from '../../engine/telemetry.ts'
import type { Logger } from '../../logging.ts'
import type { Time } from '../../log/time.ts'
import type { LogReader, ProducerIdentity } from '../../log/types.ts'
import type { LabEvent, TaskStatus } from '../lab-runtime.ts'
import type { TelemetryEnvelope } from './kafka-app.ts'
import { conditionOf, CountedWarnings, warningOf } from '../../log/counted-warnings.ts'
import { logErrorCode } from '../../log/kafka/kafka-errors.ts'

const TELEMETRY_POLL_MS = 50

/** A worker as its telemetry shows it. */
export interface KafkaWorkerView {
  readonly id: string
  readonly slotId: string
  tasks: Map<number, TaskStatus>
  memberId: string | null
  state: string
  producers: ProducerIdentity[]
  pid: number | null
  host: string | null
  lastSeenMs: number
  /** When its first telemetry arrived (remote workers) or its process started (local ones). */
  firstSeenMs: number
}

export interface TelemetryTarget {
  time: Time
  log: Logger
  /** Whether a worker is one of this runtime's own whose process has ended (its last words must not revive it). */
  endedOwnWorker(workerId: string): boolean
  /** A worker that killed itself at a step (or on a kill command), as it reported just before its SIGKILL. */
  onSelfKill(view: KafkaWorkerView, atMs: number, step: Step | null, tasks: TaskStatus[], memberId: string | null): void
  /** A worker that stopped itself (SIGSTOP) at a step, as it reported just before. */
  onSelfPause(view: KafkaWorkerView, atMs: number, step: Step): void
  onEngineEvent(e: EngineEvent, memberId: string | null): void
  emit(e: LabEvent): void
}

export class WorkerTelemetry {
  /** Workers seen on the telemetry topic that this runtime did not start (other machines). */
  readonly remoteWorkers = new Map<string, KafkaWorkerView>()
  /** Every worker this runtime started, by id, current and past incarnations alike. */
  readonly ownWorkers = new Map<string, KafkaWorkerView>()
  /** Self-kills already turned into recoveries (by worker id). */
  private readonly killReported = new Set<string>()
  /** A read that fails every poll while a broker is down: one line per 10 s with the count. */
  private readonly warnings = new CountedWarnings((line) => this.t.log.warn(line))

  constructor(private readonly t: TelemetryTarget) {}

  /** The next telemetry record to read: a loop started again (a revived runtime) goes on from there. */
  private offset = 0

  async loop(reader: LogReader, topic: string, stopped: () => boolean, startedAtMs: number): Promise<void> {
    const tp = { topic, partition: 0 }
    while (!stopped()) {
      try {
        for (;;) {
          const r = await reader.read(tp, this.offset, 1_000, 'read_uncommitted')
          this.offset = r.nextOffset
          for (const rec of r.records) this.onRecord(rec.value)
          if (r.records.length === 0) break
        }
      } catch (e) {
        // A just-created topic answers "not the leader" for a moment: only later failures are news.
        if (!stopped() && this.t.time.now() - startedAtMs > 10_000)
          this.warnings.warn(conditionOf('telemetry not read', e, logErrorCode), warningOf('telemetry not read', e))
      }
      await this.t.time.sleep(TELEMETRY_POLL_MS)
    }
    this.warnings.flush()
  }

  private onRecord(value: string | null): void {
    try {
      this.onEnvelope(JSON.parse(value ?? 'null') as TelemetryEnvelope)
    } catch {
      // one malformed envelope (another version's worker, say) is skipped, not the rest of the batch
    }
  }

  private viewOf(env: TelemetryEnvelope): KafkaWorkerView {
    const own = this.ownWorkers.get(env.workerId)
    if (own) return own
    let v = this.remoteWorkers.get(env.workerId)
    if (!v) {
      v = {
        id: env.workerId,
        slotId: env.slotId,
        tasks: new Map(),
        memberId: null,
        state: 'running',
        producers: [],
        pid: env.pid,
        host: env.host,
        lastSeenMs: env.atMs,
        firstSeenMs: env.atMs,
      }
      this.remoteWorkers.set(env.workerId, v)
    }
    return v
  }

  private onEnvelope(env: TelemetryEnvelope | null): void {
    if (!env || typeof env.workerId !== 'string' || !Array.isArray(env.events) || !Array.isArray(env.status?.tasks))
      return
    const view = this.viewOf(env)
    const origin = this.ownWorkers.has(env.workerId) ? 'own' : 'remote'
    // A killed process's last words must not bring its view back to life.
    if (!this.t.endedOwnWorker(env.workerId)) {
      Object.assign(view, {
        tasks: new Map(env.status.tasks.map((t) => [t.partition, t])),
        memberId: env.status.memberId,
        state: env.status.state,
        producers: env.status.producers,
        pid: env.pid,
        host: env.host,
        lastSeenMs: env.atMs,
      })
      this.t.emit({
        type: 'worker-status',
        workerId: env.workerId,
        slotId: env.slotId,
        origin,
        pid: env.pid,
        host: env.host,
        status: env.status,
        atMs: env.atMs,
      })
    }
    for (const e of env.events) this.t.onEngineEvent(e, env.status.memberId)
    if (env.killed && !this.killReported.has(env.workerId)) {
      this.killReported.add(env.workerId)
      this.t.onSelfKill(view, env.atMs, env.killed.step, env.status.tasks, env.status.memberId)
      view.state = 'dead'
    }
    if (env.paused) this.t.onSelfPause(view, env.atMs, env.paused.step)
  }
}
