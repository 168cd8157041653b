// The lab's wire protocol, declared once for the server and the browser: the snapshot the server
// pushes (coalesced, 10-20 a second at most), and the commands a client may send (validated with zod).

import { z } from 'zod'
import { PROCESSING_GUARANTEES, type ProcessingGuarantee, rangeOf } from './streams-config.ts'
import { choiceSchema, issueText, settingSchema } from './setting-schema.ts'
import type { Step, StepCounters } from './five-steps.ts'
import type { TaskStop } from './task-stop.ts'
import type { JournalSpan } from './journal.ts'

export { STEP_NAMES, type Step, type StepCounters } from './five-steps.ts'
// No eval: the pages' CSP forbids it (zod would probe with Function('') and log a violation).
z.config({ jitless: true })

export type Backend = 'embedded' | 'kafka'

export interface LabConfig {
  'processing.guarantee': ProcessingGuarantee
  'commit.interval.ms': number
  'transaction.timeout.ms': number
  'session.timeout.ms': number
  'enable.idempotence': boolean
  /** Input records per second fed by the load generator. */
  inputRatePerSec: number
  workers: number
  partitions: number
  latencyModel: 'default' | 'off'
  /** Kafka Streams' name for the poison-record policy. */
  'default.deserialization.exception.handler': DeserializationHandler
}

export const DESERIALIZATION_HANDLERS = ['log-and-continue', 'fail'] as const
export type DeserializationHandler = (typeof DESERIALIZATION_HANDLERS)[number]

export type WorkerState = 'running' | 'paused' | 'killed' | 'stopped'

export interface TaskView {
  taskId: string
  partition: number
  workerId: string
  state: 'restoring' | 'running' | 'suspended'
  /**
   * Steps 1-4: records through each step as the task's workers counted them (a redone record
   * again). `committed` (step 5): the input records below the group's committed offset, each once:
   * committedOffset as a count (the input topic starts at 0 and holds no markers).
   */
  steps: StepCounters
  /** Next offset to read from the input partition. */
  position: number
  /** The group's committed offset of the input partition: the next record a new owner reads (null: none yet). */
  committedOffset: number | null
  /** Input high watermark minus the committed offset. */
  lag: number
}

export interface ProducerView {
  transactionalId: string | null
  producerId: number
  epoch: number
}

/** The record that stopped a task (a poison record under default.deserialization.exception.handler=fail). */
export type TaskStopView = TaskStop

/** A task no worker runs because a worker failed: the record that stopped it (if it met one) and its true lag. */
export interface StoppedTaskView {
  taskId: string
  partition: number
  /** The failed worker that last held it. */
  workerId: string
  stop: TaskStopView | null
  committedOffset: number | null
  /** Input high watermark minus the group's committed offset (it grows while the task is stopped). */
  lag: number
}

export interface WorkerView {
  id: string
  memberId: string | null
  state: WorkerState
  taskIds: string[]
  producers: ProducerView[]
  startedAtMs: number
  /** Why the worker stopped, when it failed (for example a poison record under the fail policy). */
  error?: string | null
  /** The record that stopped one of its tasks, when a poison record under the fail policy did. */
  stop?: TaskStopView | null
  /** Kafka backend: the worker's operating-system process and host. */
  pid?: number | null
  host?: string | null
  /**
   * Kafka backend: a worker this server did not start (another machine, same cluster and application.id); kill only.
   */
  remote?: boolean
  /** Who stopped it cleanly, when it was not killed by a fault: a scenario ending its lab. */
  stoppedBy?: 'scenario'
}

/** Controls a backend cannot offer, each with the reason shown beside it. */
export interface Unavailable {
  dropAcks?: string
  scenarios?: string
  exactlyOnceV2?: string
  latencyModel?: string
  pause?: string
  killAtStep?: string
  /** default.deserialization.exception.handler=fail. */
  failHandler?: string
}

/** Whether the lab reaches its cluster (Kafka backend): an outage is shown while it lasts and counted after. */
export interface BackendHealth {
  reachable: boolean
  /** When the current state began. */
  sinceMs: number
  /** The last error while unreachable. */
  error: string | null
  /** Outages seen since the lab started, with the last one's span. */
  outages: number
  lastOutage: { fromMs: number; toMs: number } | null
}

export interface ChartPoint {
  t: number
  /** Processed throughput (docs/measures.md): records/s by which the group's committed input offsets advance. */
  processedPerSec: number
  /** Committed output records/s seen by a read_committed consumer of the output topic. */
  visibleOutputPerSec: number
  latencyP50Ms: number | null
  latencyP99Ms: number | null
  latencyMaxMs: number | null
}

export type MarkerKind =
  | 'kill'
  | 'pause'
  | 'resume'
  | 'rebalance'
  | 'config'
  | 'fenced'
  | 'ack-dropped'
  | 'worker-added'
  | 'reset'
  | 'recovered'
  | 'outage'
  | 'stopped'

export interface TimelineMarker {
  t: number
  kind: MarkerKind
  label: string
}

/** teardown: the lab's own reset or close, not a fault */
export type AbortReasonView = 'fenced' | 'crash' | 'timeout' | 'error' | 'teardown'

export interface TxnView {
  id: string
  transactionalId: string
  producerId: number
  epoch: number
  partitions: string[]
  outputRecords: number
  changelogRecords: number
  offsetsCommitted: number
  beginMs: number
  endMs: number | null
  outcome: 'open' | 'committed' | 'aborted'
  abortReason: AbortReasonView | null
}

export interface RecoveryPhases {
  detection: number | null
  rebalance: number | null
  fence: number | null
  restore: number | null
  catchUp: number | null
}

export interface RecoveryView {
  id: string
  workerId: string
  guarantee: ProcessingGuarantee
  t0: number
  t1: number | null
  recoveryMs: number | null
  phases: RecoveryPhases
  /** Instants at which each phase ended (for drawing the timeline). */
  phaseEnds: RecoveryPhases
  partitions: number[]
  /** Position at kill minus committed offset at t0, summed. */
  redone: number
  /** Duplicates the validator attributes to this kill (null until known). */
  duplicates: number | null
}

export interface CorrectnessView {
  /** null: unavailable (for example records the figure needs were deleted by retention before they were checked). */
  duplicates: number | null
  lost: number | null
  abortedReads: number
  abortedReadsUncommitted: number
  stateMismatches: number | null
  /** input records whose update reached a key's state twice (server/validator/state-drift.ts) */
  doubleAppliedUpdates?: number | null
  openTransactions: number
  /** What the current guarantee allows, one line per figure. */
  allowed: Record<'duplicates' | 'lost' | 'abortedReads' | 'stateMismatches' | 'openTransactions', string>
  duplicateKeys: string[]
  checkedAtMs: number
  inputChecked: number
}

export interface RecordTrace {
  id: string
  key: string
  partition: number
  offset: number
  workerId: string
  steps: { step: Step; atMs: number }[]
  /** The step at which the worker died holding this record, if it did. */
  crashedAtStep: Step | null
  outcome: 'in-flight' | 'committed' | 'aborted' | 'redone'
}

// A finished scenario run's evidence card and its links (lib/evidence.ts).
import { type EvidenceCard, type LabIdentity, LAB_ID_PATTERN } from './evidence.ts'
export type { EvidenceCard, EvidenceLink, EvidenceRecords, LabIdentity } from './evidence.ts'

export interface ScenarioView {
  name: string
  title: string
  summary: string
  status: 'running' | 'passed' | 'failed' | 'error'
  narrative: { atMs: number; text: string }[]
  expectations: { claim: string; holds: boolean; undecided?: string }[]
  conclusion: string | null
  error: string | null
  startedAtMs: number
}

/** One stored record of the partition log view (deep view). */
export interface LogCell {
  offset: number
  key: string | null
  producerId: number
  epoch: number
  sequence: number
  /** null: data record; otherwise the control marker's type. */
  control: 'COMMIT' | 'ABORT' | null
  /** null for non-transactional records. */
  outcome: 'committed' | 'aborted' | 'pending' | null
  /** The input record this output/changelog record comes from. */
  source: { partition: number; offset: number } | null
}

export interface PartitionLogView {
  topic: string
  partition: number
  logStartOffset: number
  lastStableOffset: number
  highWatermark: number
  /** The most recent records (up to ~120), oldest first. */
  cells: LogCell[]
  /** Where a read_committed and a read_uncommitted consumer of this partition stand (next offset to read). */
  readCommittedPosition: number
  readUncommittedPosition: number
  /** Which offsets these are (absent: the latest), and with 'at' the first offset asked for. */
  window?: 'latest' | 'last-abort' | 'at'
  fromOffset?: number
  /**
   * The last selection named another lab's records (an old evidence card's link): why it was refused,
   * shown instead of records until the next selection.
   */
  refusal?: string
}

export interface ProducerTimeline {
  transactionalId: string
  producerId: number
  /** Each epoch the producer id had, and when it began. */
  epochs: { epoch: number; atMs: number }[]
  /** by epoch when absent; by generation: exactly_once_v2 (KIP-447) */
  fencings: { atMs: number; reason: string; by?: 'epoch' | 'generation' }[]
  /** The last sequence number the broker holds for this producer, per partition. */
  lastSequence: { partition: string; sequence: number }[]
}

export interface DuplicateLedgerEntry {
  key: string
  /** Committed output records beyond the first for the same input record. */
  duplicates: number
  /**
   * Extra copies whose running count is higher than the first copy's: the redo applied
   * the update again (a double-applied update).
   */
  doubleApplied: number
  /** What caused them: a kill (recovery id and worker) or a retried produce (lost ack). */
  causes: string[]
}

export interface LabSnapshot {
  seq: number
  atMs: number
  startedAtMs: number
  backend: Backend
  /** Backend limitations stated plainly (e.g. exactly_once_v2 unavailable on kafkajs). */
  notes: string[]
  /** Controls this backend cannot offer, with the reason. */
  unavailable?: Unavailable
  health?: BackendHealth
  /** Kafka backend: the application.id naming the group and every topic. */
  applicationId?: string
  /**
   * Kafka backend with a network delay (EOSCOPE_NETWORK_LATENCY_MS): how far the worker processes are from the
   * brokers, in words ("workers 1 ms from the brokers").
   */
  network?: string
  /** The lab running now: a new one at every reset and every lab a scenario starts (lib/evidence.ts). */
  lab?: LabIdentity
  config: LabConfig
  kafkaStreamsDefaults: { commitIntervalMs: Record<ProcessingGuarantee, number> }
  workers: WorkerView[]
  tasks: TaskView[]
  /** Tasks stopped by a failed worker (a poison record under the fail policy), until they run again. */
  stoppedTasks?: StoppedTaskView[]
  series: ChartPoint[]
  markers: TimelineMarker[]
  transactions: TxnView[]
  txnTotals: { committed: number; aborted: number; open: number }
  recoveries: RecoveryView[]
  correctness: CorrectnessView | null
  traces: RecordTrace[]
  /** Deep views. */
  partitionLog?: PartitionLogView | null
  producers?: ProducerTimeline[]
  duplicateLedger?: DuplicateLedgerEntry[]
  /** every partition's offsets, open transactions, lag: read with the partition log */
  partitions?: import('./partition-table.ts').PartitionRow[]
  /** the coordinators' and partition leaders' view of its transactions, find-hanging's verdicts */
  transactionsView?: import('./transactions-view.ts').TransactionsViewData
  /** The guided scenario running or last run on this lab. */
  scenario?: ScenarioView | null
  /** The scenarios a user can start, with what each shows. */
  scenarios?: { name: string; title: string; summary: string }[]
  /** One card per finished scenario run, kept until dismissed. */
  evidence?: EvidenceCard[]
  /** The span of the lab's event journal (entries via GET /api/lab/journal, past frames via GET /api/lab/at). */
  journal?: JournalSpan
  totals: {
    inputRecords: number
    committedInput: number
    outputRecords: number
    kills: number
    droppedAcks: number
    fenced: number
    deadLetters?: number
  }
}
// ---- commands ---------------------------------------------------------------------------------

/** The live lab's ranges (the dashboard's controls), from the settings table. */
export const LIMITS = {
  commitIntervalMs: rangeOf('commit.interval.ms', 'lab'),
  inputRatePerSec: rangeOf('inputRatePerSec', 'lab'),
  workers: rangeOf('workers', 'lab'),
} as const

const workerId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9._-]+$/)

export const SetConfigCommand = z
  .object({
    'processing.guarantee': choiceSchema(PROCESSING_GUARANTEES).optional(),
    'commit.interval.ms': settingSchema('commit.interval.ms', 'lab').optional(),
    'transaction.timeout.ms': settingSchema('transaction.timeout.ms', 'lab').optional(),
    'session.timeout.ms': settingSchema('session.timeout.ms', 'lab').optional(),
    'enable.idempotence': z.boolean().optional(),
    inputRatePerSec: settingSchema('inputRatePerSec', 'lab').optional(),
    workers: settingSchema('workers', 'lab').optional(),
    'default.deserialization.exception.handler': choiceSchema(DESERIALIZATION_HANDLERS).optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, { message: 'name at least one setting to change' })

export const WorkerCommand = z.object({ workerId }).strict()
/** A kill is abrupt; with a step, the worker dies when it next reaches that step of the five. */
export const KillCommand = z.object({ workerId, step: settingSchema('killAtStep').optional() }).strict()
export const DropAcksCommand = z.object({ count: settingSchema('dropAcks', 'lab').default(1) }).strict()
export const EmptyCommand = z.object({}).strict()

export const COMMANDS = {
  setConfig: SetConfigCommand,
  killWorker: KillCommand,
  pauseWorker: WorkerCommand,
  resumeWorker: WorkerCommand,
  addWorker: EmptyCommand,
  dropAcks: DropAcksCommand,
  reset: EmptyCommand,
  runScenario: z
    .object({
      name: z
        .string()
        .min(1)
        .max(64)
        .regex(/^[a-z0-9-]+$/),
    })
    .strict(),
  /**
   * After a poison record stopped tasks under fail: switch to log-and-continue (the record goes to
   * the dead-letter topic) and restart the workers.
   */
  skipPoison: EmptyCommand,
  /** Appends input records whose values do not parse. */
  injectPoison: z.object({ count: settingSchema('poisonRecords').default(1) }).strict(),
  /** Removes a scenario's evidence card from the dashboard. */
  dismissEvidence: z.object({ id: z.string().min(1).max(120) }).strict(),
  killBroker: z.object({ brokerId: z.number().int().min(0).max(2_147_483_647) }).strict(),
  restartBroker: z.object({ brokerId: z.number().int().min(0).max(2_147_483_647) }).strict(), // broker cards (Kafka)
  /** Which partition the partition log view shows. */
  selectPartition: z
    .object({
      topic: z.enum(['input', 'output', 'changelog']),
      partition: settingSchema('partition'),
      /** latest: the newest records; last-abort: the records around the partition's latest ABORT marker. */
      window: z.enum(['latest', 'last-abort', 'at']).default('latest'),
      /** With window 'at': the first offset to show (an evidence link's fromOffset). */
      fromOffset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
      /** The lab whose records are asked for (an evidence link's): refused unless it is the running lab. */
      lab: z.string().regex(LAB_ID_PATTERN, 'lab must be a lab id, as 1a2b3c-4').optional(),
    })
    .strict(),
  abortHangingTransaction: z
    .object({
      topic: z.enum(['input', 'output', 'changelog']),
      partition: settingSchema('partition'),
      producerId: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    })
    .strict(), // only a hanging one (find-hanging's rule): an ABORT marker
  injectHangingTransaction: z
    .object({
      topic: z.enum(['input', 'output', 'changelog']).default('output'),
      partition: settingSchema('partition'),
    })
    .strict(), // fault: a producer id no coordinator knows
} as const

export type CommandName = keyof typeof COMMANDS
/** A command's payload after validation (defaults applied). */
export type CommandPayload<N extends CommandName> = z.infer<(typeof COMMANDS)[N]>
/** What a client sends (fields with defaults may be left out). */
export type CommandInput<N extends CommandName> = z.input<(typeof COMMANDS)[N]>

/** A validated command: switch on `name` and the payload narrows to that command's. */
export type LabCommand = { [N in CommandName]: { name: N; payload: CommandPayload<N> } }[CommandName]

export type CommandResult =
  | { ok: true; message?: string }
  | { ok: false; error: string /** refused for the lab's state, not the input (REST 409) */; conflict?: true }

/** Validates a command by name; never throws. */
export function parseCommand(
  name: unknown,
  payload: unknown,
): ({ ok: true } & LabCommand) | { ok: false; error: string } {
  if (typeof name !== 'string' || !Object.hasOwn(COMMANDS, name)) {
    return {
      ok: false,
      error: `unknown command ${JSON.stringify(String(name).slice(0, 40))}; known: ${Object.keys(COMMANDS).join(', ')}`,
    }
  }
  const r = COMMANDS[name as CommandName].safeParse(payload ?? {})
  if (!r.success) return { ok: false, error: `invalid ${name}: ${issueText(r.error, 'invalid payload')}` }
  return { ok: true, name, payload: r.data } as { ok: true } & LabCommand
}
