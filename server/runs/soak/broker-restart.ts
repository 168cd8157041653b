// Broker restarts, the Kafka soak's own fault: the local broker of scripts/kafka-broker.sh stopped
// and started again mid-run, with the load and the workers running, at a seeded place in each
// block of 50 faults (and now and then after the faults are done, while a minimum duration runs).

import { execFile } from 'node:child_process'
import { connect } from 'node:net'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { SeededRandom } from '../../log/time.ts'
import { groupSettled, waitUntil } from '../../runtime/driven-runtime.ts'
import type { Fault } from './faults.ts'

const SCRIPT = fileURLToPath(new URL('../../../scripts/kafka-broker.sh', import.meta.url))

function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port })
    s.setTimeout(1_000)
    s.once('connect', () => {
      s.destroy()
      resolve(true)
    })
    s.once('error', () => resolve(false))
    s.once('timeout', () => {
      s.destroy()
      resolve(false)
    })
  })
}

/** scripts/kafka-broker.sh stop, then start, for the broker on `hostPort`; refuses one the script did not start. */
export function scriptBrokerRestart(hostPort: string): () => Promise<void> {
  const [host, portText] = [hostPort.slice(0, hostPort.lastIndexOf(':')), hostPort.slice(hostPort.lastIndexOf(':') + 1)]
  const env = { ...process.env, KAFKA_PORT: portText }
  const run = (cmd: 'stop' | 'start') => promisify(execFile)('bash', [SCRIPT, cmd], { env, timeout: 180_000 })
  return async () => {
    await run('stop')
    if (await portOpen(host || '127.0.0.1', Number(portText))) {
      throw new Error(
        `the broker on ${hostPort} is still up after scripts/kafka-broker.sh stop: a broker restart needs the ` +
          `local broker started by that script (unset KAFKA_BROKERS)`,
      )
    }
    await run('start')
  }
}

/** The fault indices at which the broker restarts: one at a seeded place in each block of 50. */
export function brokerRestartPlan(faults: number, pick: (lo: number, hi: number) => number): Set<number> {
  const plan = new Set<number>()
  for (let block = 0; block * 50 < faults; block++) {
    const lo = block * 50
    const hi = Math.min(faults, lo + 50)
    // Not the very first fault of the run: the group forms first.
    plan.add(pick(Math.max(lo, 3 < hi ? Math.min(3, hi - 1) : lo), hi))
  }
  return plan
}

export interface BrokerOutage {
  atMs: number
  outageMs: number
}

/**
 * The planned fault: resumes any paused worker, restarts the broker, records the outage in
 * `outages` and waits (up to 60 s) for the group to settle again.
 */
export function brokerRestartFault(
  restart: () => Promise<void>,
  faults: number,
  rng: SeededRandom,
  outages: BrokerOutage[],
): Fault {
  const plan = brokerRestartPlan(faults, (lo, hi) => rng.int(lo, hi))
  let dueAt = -1
  return {
    share: 0,
    due(faultsSoFar, roll) {
      dueAt = faultsSoFar
      return plan.has(faultsSoFar) || (faultsSoFar >= faults && roll < 0.02)
    },
    async apply(ctx) {
      for (const id of ctx.paused) ctx.lab.resume(id)
      ctx.paused.clear()
      const atMs = Math.round(ctx.elapsedMs())
      const t = ctx.time.now()
      await restart()
      const outageMs = Math.round(ctx.time.now() - t)
      outages.push({ atMs, outageMs })
      plan.delete(dueAt)
      ctx.record('brokerRestart', `outage ${outageMs} ms`)
      await waitUntil(ctx.time, () => groupSettled(ctx.lab), 60_000)
    },
  }
}
