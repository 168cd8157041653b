// Broker SIGKILLs during a headless run (eoscope run --kill-broker-every): every killEveryMs while
// input is fed and not all committed, a broker of the local cluster that scripts/kafka-cluster.sh
// started is SIGKILLed (no controlled shutdown: its leaderships and coordinators move on fencing),
// aimed at the role asked for at that moment (the group's coordinator, the broker coordinating the
// most of the run's transactional ids, or a leader of an input partition), and started again
// restartAfterMs later. One broker is down at a time: the next kill waits for the restart, and a
// kill falls only while every broker is up (min.insync.replicas 2 of 3 stops every write with two
// down). Each kill is listed with the roles its broker had, beside the run's recoveries.

import { brokerRoles, type BrokerView } from '../../lib/broker-view.ts'
import { refusal } from '../log/capabilities.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'
import { brokerKillVictim, type BrokerKillTarget } from './soak/broker-kill.ts'

export const BROKER_TARGETS = ['cycle', 'group-coordinator', 'transaction-coordinator', 'input-leader'] as const
export type BrokerTargetChoice = (typeof BROKER_TARGETS)[number]

/** The order `cycle` aims in: the group's coordinator first, as the check that found issue 40 did. */
const CYCLE: readonly BrokerKillTarget[] = ['group-coordinator', 'transaction-coordinator', 'input-leader']

export interface BrokerFaultOptions {
  killEveryMs: number
  restartAfterMs: number
  target: BrokerTargetChoice
}

/** One broker kill of a run; times from the run's start, in ms. */
export interface RunBrokerKill {
  t: number
  brokerId: number
  target: BrokerKillTarget
  /** What it did for the run when it was killed (lib/broker-view.ts's words). */
  roles: string[]
  /** From the kill until the restarted broker answered; null while it is not back (restartError says why). */
  downMs: number | null
  restartError?: string
}

/** Why broker kills cannot run on this runtime, or null. */
export function brokerFaultsRefusal(lab: LabRuntime): string | null {
  if (!lab.connection.brokers) return 'broker kills need --backend kafka'
  return refusal(lab.connection.capabilities, 'broker-faults')
}

const RESTART_ATTEMPTS = 3

/**
 * Kills and restarts brokers until `stopped()` or the fault window closes; `kills` receives each kill. A restart under
 * way when it stops is finished first: the run never ends with a broker down that it killed.
 */
export async function brokerFaultLoop(
  lab: LabRuntime,
  o: BrokerFaultOptions,
  startedAtMs: number,
  kills: RunBrokerKill[],
  stopped: () => boolean,
): Promise<void> {
  const control = lab.connection.brokers?.()
  if (!control) return
  const time = lab.time
  const scope = {
    topics: Object.values(lab.topics),
    groupId: lab.groupId,
    transactionalIdPrefix: `${lab.groupId}-`,
  }
  for (let n = 0; !stopped() && lab.faultWindowOpen(); ) {
    await time.sleep(o.killEveryMs)
    if (stopped() || !lab.faultWindowOpen()) break
    const views: BrokerView[] | null = await control.describe(scope).catch(() => null)
    if (views === null) continue
    // In a cycle, a role no broker has now (no transactional ids under at_least_once) passes to the next.
    const targets = o.target === 'cycle' ? CYCLE.map((_, i) => CYCLE[(n + i) % CYCLE.length]!) : [o.target]
    const aimed = targets
      .map((target) => ({
        target,
        victim: brokerKillVictim(views, target, lab.topics.input, (xs) => lab.random.pick(xs)),
      }))
      .find((a) => a.victim !== null)
    if (!aimed?.victim) continue
    const { target, victim } = aimed
    n = CYCLE.indexOf(target)
    const killedAt = time.now()
    const pid = await control.kill(victim.id).catch(() => null)
    if (pid === null) continue
    n++
    const kill: RunBrokerKill = {
      t: Math.round(killedAt - startedAtMs),
      brokerId: victim.id,
      target,
      roles: brokerRoles(victim),
      downMs: null,
    }
    kills.push(kill)
    await time.sleep(o.restartAfterMs)
    for (let attempt = 1; attempt <= RESTART_ATTEMPTS; attempt++) {
      try {
        await control.restart(victim.id)
        kill.downMs = Math.round(time.now() - killedAt)
        delete kill.restartError
        break
      } catch (e) {
        kill.restartError = e instanceof Error ? (e.message.split('\n')[0] ?? e.message) : String(e)
        await time.sleep(2_000)
      }
    }
    if (kill.downMs === null) return // a broker that will not come back ends the kills: the run goes on without them
  }
}
