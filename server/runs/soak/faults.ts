// The soak's fault schedule: a seeded draw among the faults a backend offers, each with its share
// of the draws. Which faults are offered comes from the connection's capabilities (dropping an ack,
// pausing, killing at a step, a second exactly-once guarantee); a backend may add faults of its own
// that come at planned places instead of by draw (broker restarts on Kafka).

import type { Step } from '../../../lib/lab-protocol.ts'
import type { ProcessingGuarantee, StreamsConfig } from '../../../lib/streams-config.ts'
import { refusal, type Capability, type LogCapabilities } from '../../log/capabilities.ts'
import type { SeededRandom, Time } from '../../log/time.ts'
import { busyWorkers } from '../../runtime/driven-runtime.ts'
import type { LabRuntime } from '../../runtime/lab-runtime.ts'

export const FAULT_KINDS = [
  'kill',
  'killAtStep',
  'pause',
  'droppedAck',
  'guaranteeChange',
  'commitIntervalChange',
  'brokerRestart',
  'brokerKill',
] as const
export type FaultKind = (typeof FAULT_KINDS)[number]

export const COMMIT_INTERVALS = [50, 100, 250, 500, 1_000]

/** What a fault may touch while it is applied. */
export interface FaultContext {
  readonly lab: LabRuntime
  readonly time: Time
  readonly rng: SeededRandom
  /** The guarantees this run switches between (one only: no guarantee change). */
  readonly guarantees: readonly ProcessingGuarantee[]
  /** Workers paused now, woken up past their session timeout. */
  readonly paused: Set<string>
  /** The runtime may freeze a worker at one of the five steps (else only as a whole). */
  readonly pausesAtStep: boolean
  /** Restarts the workers with the config changed. */
  reconfigure(changes: Partial<StreamsConfig>): Promise<void>
  /** Time since the soak started. */
  elapsedMs(): number
  /** Counts the fault and tells the caller's onFault. */
  record(kind: FaultKind, detail: string): void
}

export interface Fault {
  /** Its share of the random draws (the shares of the faults offered are scaled to add up to 1). */
  readonly share: number
  /** A planned fault: applied before any draw when due, given the faults so far and this round's draw. */
  due?(faultsSoFar: number, roll: number): boolean
  /** Applies it, if it can apply now (a kill needs two busy workers): else the round passes without a fault. */
  apply(ctx: FaultContext): Promise<void>
}

const kill: Fault = {
  share: 0.3,
  async apply(ctx) {
    const live = busyWorkers(ctx.lab)
    if (live.length <= 1) return
    const victim = ctx.rng.pick(live).worker!.id
    const atStep = ctx.rng.next() >= 0.5 && refusal(ctx.lab.connection.capabilities, 'kill-at-step') === null
    if (!atStep) {
      if (ctx.lab.kill(victim)) ctx.record('kill', victim)
      return
    }
    const step = ctx.rng.int(1, 6) as Step
    if (ctx.lab.kill(victim, step)) ctx.record('killAtStep', `${victim} at step ${step}`)
  },
}

const pause: Fault = {
  share: 0.15,
  async apply(ctx) {
    const live = busyWorkers(ctx.lab)
    if (live.length <= 1 || ctx.paused.size > 0) return
    const victim = ctx.rng.pick(live).worker!.id
    const step = ctx.pausesAtStep && ctx.rng.next() >= 0.5 ? (ctx.rng.int(2, 6) as Step) : null
    if (!ctx.lab.pause(victim, step)) return
    ctx.paused.add(victim)
    ctx.record('pause', step === null ? victim : `${victim} at step ${step}`)
    // Wake it up past its session timeout, as a zombie.
    const wakeAfter = ctx.lab.config['session.timeout.ms'] + ctx.rng.int(100, 1_500)
    void ctx.time.sleep(wakeAfter).then(() => {
      ctx.lab.resume(victim)
      ctx.paused.delete(victim)
    })
  },
}

const droppedAck: Fault = {
  share: 0.3,
  async apply(ctx) {
    ctx.lab.dropAcks(1)
    ctx.record('droppedAck', '')
  },
}

const guaranteeChange: Fault = {
  share: 0.1,
  async apply(ctx) {
    const next = ctx.guarantees.find((g) => g !== ctx.lab.config['processing.guarantee'])!
    ctx.paused.clear()
    await ctx.reconfigure({ 'processing.guarantee': next })
    ctx.record('guaranteeChange', next)
  },
}

const commitIntervalChange: Fault = {
  share: 0.15,
  async apply(ctx) {
    const interval = ctx.rng.pick(COMMIT_INTERVALS.filter((i) => i !== ctx.lab.config['commit.interval.ms']))
    ctx.paused.clear()
    await ctx.reconfigure({ 'commit.interval.ms': interval })
    ctx.record('commitIntervalChange', String(interval))
  },
}

/**
 * The drawn faults a backend with these capabilities offers, in draw order; a guarantee change
 * when the run has two guarantees to switch between (those the backend offers for its mode).
 */
export function offeredFaults(caps: LogCapabilities, guarantees: readonly ProcessingGuarantee[]): Fault[] {
  const offered = (f: Fault, capability: Capability) => (refusal(caps, capability) === null ? [f] : [])
  return [
    kill,
    ...offered(pause, 'pause'),
    ...offered(droppedAck, 'drop-acks'),
    ...(guarantees.length > 1 ? [guaranteeChange] : []),
    commitIntervalChange,
  ]
}

/** One round of the schedule: a planned fault when one is due, else the fault the draw (`roll`, in [0, 1)) lands on. */
export async function applyNextFault(
  ctx: FaultContext,
  faults: readonly Fault[],
  faultsSoFar: number,
  roll: number,
): Promise<void> {
  const planned = faults.find((f) => f.due?.(faultsSoFar, roll))
  if (planned) {
    await planned.apply(ctx)
    return
  }
  const drawn = faults.filter((f) => f.share > 0)
  const total = drawn.reduce((a, f) => a + f.share, 0)
  let upTo = 0
  for (const [i, f] of drawn.entries()) {
    upTo += f.share / total
    if (roll < upTo || i === drawn.length - 1) return f.apply(ctx)
  }
}
