// The lab's runtime port: what the dashboard's Lab, a headless run, the soak and the sweep need of
// the workers under them, whatever the backend. Two implementations: InProcessRuntime (workers in
// this process on the embedded log) and WorkerProcessRuntime (eoscope worker processes on a Kafka
// cluster). Both publish the same typed events: the engine's telemetry (transactions with their
// partitions and record counts, restores with their offsets, fencing, offset commits), each
// worker's status (its tasks, the five step counters, its producers) and the runtime's own
// (kills, pauses, partition assignments, a cluster's reachability). What a backend can do is read
// from `connection.capabilities`, never decided here.

import type { MarkerKind, Step, StepCounters } from '../../lib/lab-protocol.ts'
import type { StreamsConfig } from '../../lib/streams-config.ts'
import type { DeserializationPolicy, TaskTopics } from '../engine/stream-task.ts'
import type { TaskStop } from '../../lib/task-stop.ts'
import type { EngineEvent } from '../engine/telemetry.ts'
import type { BrokerEvent } from '../log/embedded/embedded-cluster.ts'
import type { AckDropped } from '../log/embedded/embedded-connection.ts'
import type { SeededRandom, Time } from '../log/time.ts'
import type { LogConnection, ProducerIdentity, TopicPartition } from '../log/types.ts'
import type { LoadGenerator } from './load-generator.ts'
import type { RecoveryTracker } from './recovery-tracker.ts'

/**
 * Where a runtime's workers run: all on this process's one thread (the embedded runtime, where one
 * worker's wait for a commit is another's CPU), or each in a process of its own (worker processes
 * on a cluster, where a worker's wait is its own, as a Kafka Streams thread's). Declared once by
 * each runtime factory and scenario host; nobody above them decides it from the backend's name.
 */
export type WorkerThreads = 'shared' | 'process-per-worker'

/** One task as its worker reports it. */
export interface TaskStatus {
  partition: number
  state: string
  /** Next input offset to process (task.consumedOffset): the position. */
  consumedOffset: number
  committedOffset: number | null
  /**
   * Input offset up to which the broker acknowledged the task's output (task.ackedOffset); absent
   * from worker processes of older versions.
   */
  ackedOffset?: number
  inTransaction: boolean
  /** Records through each of the five steps (absent from worker processes of older versions). */
  steps?: StepCounters
}

/** A worker's status as it reports it (in process, or on the telemetry topic). */
export interface WorkerStatus {
  state: string
  memberId: string | null
  /** The generation its consumer last joined (-1: none yet); absent from older worker processes. */
  generationId?: number
  tasks: TaskStatus[]
  producers: ProducerIdentity[]
  error: string | null
  /**
   * The record that stopped a task of this worker (a poison record under the fail
   * policy); absent from older worker processes.
   */
  stop?: TaskStop | null
}

/**
 * A worker that ended without the runtime ending it: its process exited by itself (a fatal error,
 * or a signal the runtime did not send), or its engine failed in process. Reported, and replaced
 * after the restart delay like a killed worker where the runtime replaces crashed workers.
 */
export interface WorkerCrash {
  workerId: string
  slotId: string
  atMs: number
  /** Why: the worker's own last word (its error, its last stderr line), else how its process ended. */
  cause: string
  /** The process's exit code and signal; null for a worker in this process. */
  exitCode: number | null
  signal: string | null
}

/** What a runtime publishes besides the engine's own telemetry. */
export type RuntimeEvent =
  | {
      type: 'worker-status'
      workerId: string
      slotId: string
      /** own: a worker this runtime started; remote: one started elsewhere that joined the same application. */
      origin: 'own' | 'remote'
      pid: number | null
      host: string | null
      status: WorkerStatus
      atMs: number
    }
  /** memberId null: a new owner reported its task before its member id was known. */
  | { type: 'partitions-assigned'; memberId: string | null; partitions: number[]; atMs: number }
  | { type: 'member-gone'; memberId: string; atMs: number }
  | { type: 'worker-killed'; workerId: string; step: Step | null; atMs: number }
  /** A worker that ended without the runtime ending it (WorkerCrash). */
  | ({ type: 'worker-crashed' } & WorkerCrash)
  | { type: 'worker-paused'; workerId: string; step: Step | null; atMs: number }
  | ({ type: 'ack-dropped' } & AckDropped)
  | { type: 'cluster-unreachable'; error: string; atMs: number }
  | { type: 'cluster-reachable'; atMs: number }
  /** Something worth a timeline marker that is not an event of the workers (a lab directory not updated, say). */
  | { type: 'runtime-notice'; marker: MarkerKind; label: string; atMs: number }

/** Everything a runtime publishes; an in-process log adds its broker's own events. */
export type LabEvent = EngineEvent | RuntimeEvent | ({ source: 'broker' } & BrokerEvent)

export type SlotProcessState = 'starting' | 'running' | 'paused' | 'killed' | 'exited'

/** What every runtime shows of a worker's task in its slot views. */
export interface SlotTaskView {
  readonly partition: number
  readonly state: string
  readonly consumedOffset: number
}

export interface SlotWorkerView {
  readonly id: string
  readonly memberId: string | null
  readonly state: string
  readonly tasks: ReadonlyMap<number, SlotTaskView>
}

/** A place for one worker; a killed worker is replaced in the same slot (new id, new member id). */
export interface RuntimeSlot {
  readonly slotId: string
  readonly process: { readonly state: SlotProcessState }
  readonly worker: SlotWorkerView | null
  readonly startedAtMs: number
}

/** How the runtime's faults are called on the timeline (a worker process is SIGKILLed, say). */
export interface RuntimeWording {
  killed: string
  paused: string
  resumed: string
  restarted: string
  added: string
  /** Why the latency model cannot be chosen (a real network), or null. */
  latencyModel: string | null
  /** Why default.deserialization.exception.handler=fail cannot be chosen, or null (absent: it can). */
  failHandler?: string | null
  /** How far the workers are from the brokers, in words, when a delay is put between them (absent: none). */
  network?: string
}

/** What a runtime runs on with after a guided scenario: the user's restart delay and latency model. */
export interface RevivalSettings {
  restartAfterMs: number | null
  /** Where the log has a latency model (the embedded one); a real network ignores it. */
  latency: 'default' | 'off'
}

/** When an ended runtime's application is retired: replaced by a fresh one (a reset), or ended for good. */
export type Retirement = 'replaced' | 'ended'

export interface LabRuntime {
  readonly time: Time
  readonly random: SeededRandom
  /** The lab's own connection; its `capabilities` say what this backend can do. */
  readonly connection: LogConnection
  readonly generator: LoadGenerator
  readonly tracker: RecoveryTracker
  readonly topics: TaskTopics
  readonly groupId: string
  readonly config: StreamsConfig
  readonly deserializationPolicy: DeserializationPolicy
  readonly partitions: number
  readonly latencyModel: 'default' | 'off'
  readonly startedAtMs: number
  readonly backend: 'embedded' | 'kafka'
  /** The cluster's address when the log is a remote cluster (its reachability is then watched), else null. */
  readonly clusterAddress: string | null
  readonly kills: number
  /** Workers that ended without the runtime ending them, in order. */
  readonly crashes: readonly WorkerCrash[]
  readonly droppedAcks: number
  readonly fenced: number
  /** What this runtime measures differently from the embedded one, or cannot measure. */
  readonly notes: readonly string[]
  /** What the dashboard shows differently on this runtime. */
  readonly labNotes: readonly string[]
  readonly wording: RuntimeWording
  /** How often the dashboard reads visible output, and the partition log view. */
  readonly pollMs: { readonly visibility: number; readonly logView: number }
  /** Worker status comes as periodic messages (tasks vanish during a rebalance), not live. */
  readonly statusByMessages: boolean
  readonly slots: readonly RuntimeSlot[]

  /** Subscribes to every event; returns the unsubscribe function. */
  onEvent(listener: (e: LabEvent) => void): () => void
  start(): Promise<void>
  /** Stops the load and every worker cleanly. */
  stop(): Promise<void>
  /** Ends everything at once (no cleanup) and releases connections and processes. Safe twice. */
  close(): Promise<void>
  /**
   * Runs on after stop() with these settings: its own loops again, lost acks still armed forgotten
   * (workers come back with reconfigure(), the load with generator.continueEndless()). A runtime
   * whose connections close() ended throws: the lab is reset instead.
   */
  revive(settings: RevivalSettings): Promise<void>
  /** After close: followers told, the application's topics deleted (a no-op for an in-process log). */
  retire(how: Retirement): Promise<void>

  liveSlots(): RuntimeSlot[]
  /** The slot a worker runs in (killed and exited ones included), or undefined. */
  slotOf(workerId: string): RuntimeSlot | undefined
  /** Kills a worker abruptly, now or when it next reaches `step`. false: no such live worker. */
  kill(workerId: string, step?: Step | null): boolean
  /** As kill, but resolves once the kill was taken (a command to a worker process has reached the cluster). */
  killConfirmed(workerId: string, step?: Step | null): Promise<boolean>
  pause(workerId: string, step?: Step | null): boolean
  resume(workerId: string): boolean
  /** Whether a worker was started elsewhere (another machine): it can be killed, not paused. */
  isRemote(workerId: string): boolean
  addWorker(): RuntimeSlot
  /** Stops the last slot's worker cleanly and forgets the slot; null when only one is left. */
  removeWorker(): Promise<RuntimeSlot | null>
  /** Restarts every worker cleanly with new settings (throws ConfigException, nothing changed then). */
  reconfigure(config: StreamsConfig, deserializationPolicy?: DeserializationPolicy): Promise<void>
  dropAcks(n: number): void
  injectPoison(count: number): Promise<void>

  inputEndOffsets(): number[]
  committedOffsets(): (number | null)[]
  /**
   * The group's committed offsets and the input's end offsets as read at one moment, the committed
   * ones first, so that every committed offset is at most its partition's end offset (what a
   * consumer-group tool shows as LAG is then never negative). The two above are each the newest
   * known and may be read at different moments.
   */
  groupOffsets(): { committed: (number | null)[]; ends: number[] }
  committedTotal(): number
  /** All input produced and committed by the group. */
  caughtUp(): boolean
  /** While true, scheduled kills go on. */
  faultWindowOpen(): boolean
  transactionCounts(): { committed: number; aborted: number }
  /** Resolves once what the workers wrote is all visible to a reader (transaction markers in). */
  settle(): Promise<void>
  /** The last sequence number the log holds for a producer, per partition (where the log tells). */
  producerSequences(producerId: number): { partition: string; sequence: number }[]
  /** Bounded memory for a long lab: drops records before keepFrom(tp) (a no-op where the broker retains). */
  applyRetention(keepFrom: (tp: TopicPartition) => number): void
  /** Why the load generator stopped for good, or null. */
  loadFailure(): string | null
}

/** What every runtime is started with. */
export interface RuntimeSettings {
  /** Its application.id names the group and every topic (on a shared cluster, use a fresh one per run). */
  config: StreamsConfig
  workers: number
  partitions: number
  ratePerSec: number
  maxRecords: number
  keys: number
  seed: number
  /** A killed worker is replaced (new member id, same slot) after this long; null: never. */
  restartAfterMs: number | null
  /**
   * A crashed worker (WorkerCrash) is replaced after restartAfterMs too, as Kafka Streams' uncaught-exception handler
   * answering REPLACE_THREAD does (default: on worker processes, off in process).
   */
  restartFailed?: boolean
  /**
   * Write all maxRecords input records before any worker starts: the workers then run on a backlog and the load
   * generator does not compete with them for the CPU (a benchmark).
   */
  prefill?: boolean
}

/** A listener list: subscribe, unsubscribe, publish. */
export class EventHub {
  private readonly listeners = new Set<(e: LabEvent) => void>()

  on(l: (e: LabEvent) => void): () => void {
    this.listeners.add(l)
    return () => this.listeners.delete(l)
  }

  emit(e: LabEvent): void {
    for (const l of this.listeners) l(e)
  }
}
