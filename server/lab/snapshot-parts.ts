// Snapshot pieces, whatever the backend: the settings shown, the controls a backend cannot offer,
// the correctness view from a validator report, the recovery views from the recovery tracker, and
// the recent record traces.

import type {
  CorrectnessView,
  LabConfig,
  LogCell,
  RecordTrace,
  RecoveryView,
  Unavailable,
} from '../../lib/lab-protocol.ts'
import { decodeOutputValue } from '../../lib/records.ts'
import type { StoredRecordView } from '../log/types.ts'
import type { ProcessingGuarantee } from '../../lib/streams-config.ts'
import { guaranteeRefusal, refusal, type LogCapabilities } from '../log/capabilities.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'
import { correctnessFigures, type ValidationReport } from '../validator/report.ts'
import type { DuplicateLedger } from './duplicate-ledger.ts'
import { phaseDurations, phaseEnds, redone, type Recovery } from '../runtime/recovery-tracker.ts'

const MAX_TRACES = 16
/** The guarantee some backends cannot offer; its control shows the reason. */
const EOS_V2: ProcessingGuarantee = 'exactly_once_v2'
const SHOWN_RECOVERIES = 8

/** What each guarantee allows of each correctness figure, as the dashboard states it. */
export const ALLOWED: Record<ProcessingGuarantee, CorrectnessView['allowed']> = {
  at_most_once: {
    duplicates:
      'must be 0 after crashes: at_most_once never redoes a record (a lost ack retried without idempotence ' +
      'still writes twice)',
    lost: 'allowed after faults: offsets are committed when polled, so a crash before the produce loses the records',
    abortedReads: 'must be 0: no transactions are used',
    stateMismatches: "allowed after faults: a lost record's update is missing from the state",
    openTransactions: 'must be 0: no transactions are used',
  },
  at_least_once: {
    duplicates: 'allowed after faults: at_least_once redoes work a crash left uncommitted',
    lost: 'must be 0: offsets are committed only after the output is acknowledged',
    abortedReads: 'must be 0: no transactions are used',
    stateMismatches: 'allowed after faults: a redone record updates the state twice (a double-applied update)',
    openTransactions: 'must be 0: no transactions are used',
  },
  exactly_once: {
    duplicates: 'must be 0: output, changelog and offsets commit in one transaction',
    lost: 'must be 0',
    abortedReads: 'must be 0: read_committed never delivers an aborted record',
    stateMismatches: 'must be 0: a crashed task restores its state from the committed changelog',
    openTransactions: 'open while running; must be 0 once the run has finished',
  },
  exactly_once_v2: {
    duplicates: 'must be 0: output, changelog and offsets commit in one transaction',
    lost: 'must be 0',
    abortedReads: 'must be 0: read_committed never delivers an aborted record',
    stateMismatches: 'must be 0: a crashed task restores its state from the committed changelog',
    openTransactions: 'open while running; must be 0 once the run has finished',
  },
}

export function correctnessView(
  report: ValidationReport,
  guarantee: ProcessingGuarantee,
  nowMs: number,
): CorrectnessView {
  return {
    ...correctnessFigures(report),
    doubleAppliedUpdates: report.doubleAppliedUpdates,
    allowed: ALLOWED[guarantee],
    duplicateKeys: report.duplicateKeys.slice(0, 12).map((k) => `${k.key}×${k.count}`),
    checkedAtMs: nowMs,
    inputChecked: report.inputRecords,
  }
}

/** The latest recoveries, each with its phases and the duplicates the ledger traced to its kill. */
export function recoveryViews(recoveries: readonly Recovery[], ledger: DuplicateLedger): RecoveryView[] {
  return recoveries.slice(-SHOWN_RECOVERIES).map((x) => ({
    id: x.id,
    workerId: x.workerId,
    guarantee: x.guarantee,
    t0: x.t0,
    t1: x.t1,
    recoveryMs: x.t1 === null ? null : x.t1 - x.t0,
    phases: phaseDurations(x),
    phaseEnds: phaseEnds(x),
    partitions: x.partitions.map((p) => p.partition),
    redone: redone(x),
    duplicates: x.t1 === null ? null : ledger.duplicatesFrom(killLabel(x)),
  }))
}

export function killLabel(x: Pick<Recovery, 'workerId' | 'id'>): string {
  return `kill of ${x.workerId} (${x.id})`
}

/** The duplicate ledger's windows: the input offsets each kill left to be redone. */
export function ledgerWindows(
  recoveries: readonly Recovery[],
): { id: string; label: string; partition: number; from: number; to: number }[] {
  return recoveries.flatMap((x) =>
    x.partitions.map((p) => ({
      id: x.id,
      label: killLabel(x),
      partition: p.partition,
      from: p.committedAtKill ?? 0,
      to: p.positionAtKill,
    })),
  )
}

/**
 * One stored record as the partition log view shows it: an output or changelog record names the
 * input record it came from ('derived'); an input record is its own source.
 */
export function logCell(x: StoredRecordView, kind: 'input' | 'derived', partition: number): LogCell {
  const v = x.control === null && kind === 'derived' ? decodeOutputValue(x.value) : null
  return {
    offset: x.offset,
    key: x.key,
    producerId: x.producerId,
    epoch: x.producerEpoch,
    sequence: x.sequence,
    control: x.control,
    outcome: x.txnOutcome,
    source: v ? v.source : kind === 'input' ? { partition, offset: x.offset } : null,
  }
}

/** A few sampled input records followed through the five steps, and what a kill did to them. */
export class TraceBook {
  private traces = new Map<string, RecordTrace>()

  /**
   * A trace step is reported once the record has passed it, and a kill "at step N" stops the worker
   * before step N runs (the engine's atStep hook): the record it held had passed N − 1, so the
   * step it died at is the one after its last, numbered as the narrative and the pipeline number it.
   */
  onKilled(workerId: string): void {
    for (const tr of this.traces.values()) {
      if (tr.workerId === workerId && tr.outcome === 'in-flight') {
        tr.crashedAtStep = Math.min(5, (tr.steps.at(-1)?.step ?? 0) + 1) as RecordTrace['crashedAtStep']
        // Its offset was not committed: the next owner processes it again.
        tr.outcome = 'redone'
      }
    }
  }

  onTrace(e: {
    partition: number
    offset: number
    key: string
    workerId: string
    step: RecordTrace['steps'][number]['step']
    atMs: number
  }): void {
    const id = `${e.partition}@${e.offset}`
    let tr = this.traces.get(id)
    if (!tr) {
      tr = {
        id,
        key: e.key,
        partition: e.partition,
        offset: e.offset,
        workerId: e.workerId,
        steps: [],
        crashedAtStep: null,
        outcome: 'in-flight',
      }
      this.traces.set(id, tr)
      while (this.traces.size > MAX_TRACES) this.traces.delete(this.traces.keys().next().value!)
    }
    if (tr.workerId !== e.workerId) {
      tr.outcome = 'redone'
      tr.workerId = e.workerId
    }
    tr.steps.push({ step: e.step, atMs: e.atMs })
    if (e.step === 5) tr.outcome = 'committed'
  }

  list(): RecordTrace[] {
    return [...this.traces.values()]
  }

  clear(): void {
    this.traces = new Map()
  }
}

/** The controls a backend cannot offer, each with its reason, from its log's capabilities. */
export function unavailableControls(caps: LogCapabilities, rt: LabRuntime): Unavailable {
  const u: Unavailable = {}
  const reasons: [keyof Unavailable, string | null][] = [
    ['dropAcks', refusal(caps, 'drop-acks')],
    ['scenarios', refusal(caps, 'scenarios')],
    ['exactlyOnceV2', guaranteeRefusal(caps, EOS_V2)],
    ['pause', refusal(caps, 'pause')],
    ['killAtStep', refusal(caps, 'kill-at-step')],
    ['latencyModel', rt.wording.latencyModel],
    ['failHandler', rt.wording.failHandler ?? null],
  ]
  for (const [k, reason] of reasons) if (reason !== null) u[k] = reason
  return u
}

/** The settings the controls show. */
export function labConfig(rt: LabRuntime, inputRatePerSec: number): LabConfig {
  const c = rt.config
  return {
    'processing.guarantee': c['processing.guarantee'],
    'commit.interval.ms': c['commit.interval.ms'],
    'transaction.timeout.ms': c['transaction.timeout.ms'],
    'session.timeout.ms': c['session.timeout.ms'],
    'enable.idempotence': c['enable.idempotence'],
    inputRatePerSec,
    workers: rt.slots.length,
    partitions: rt.partitions,
    latencyModel: rt.latencyModel,
    'default.deserialization.exception.handler': rt.deserializationPolicy,
  }
}

export { brokerCards } from './broker-board.ts'
