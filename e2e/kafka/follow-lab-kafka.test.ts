// A worker started on its own (as on another machine) with `eoscope worker --follow-lab` joins the
// dashboard's Kafka lab: it shows up as a remote worker, the lab can kill it (a command on the
// commands topic; the worker SIGKILLs itself), and it follows the lab to new settings, to a fresh
// application after a reset, and waits when the lab shuts down.

import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, inject, it } from 'vitest'
import type { LabSnapshot } from '../../lib/lab-protocol.ts'
import { createKafkaLab } from '../../server/lab/kafka-lab.ts'
import type { Lab } from '../../server/lab/lab.ts'
import { KAFKA_GROUP_TIMEOUTS } from '../../server/log/kafka/capabilities.ts'

const brokers = inject('kafkaBrokers')
const BIN = fileURLToPath(new URL('../../bin/eoscope.mjs', import.meta.url))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/**
 * States reached after a change (a kill detected, a rebalance, a follower restarted): a few
 * session timeouts, generous for a busy machine.
 */
const STATE_MS = 6 * KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs + 30_000

interface Follower {
  child: ChildProcess
  out(): string
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

function follower(workerId: string): Follower {
  const child = spawn(
    process.execPath,
    [BIN, 'worker', '--brokers', brokers, '--follow-lab', '--worker-id', workerId, '--slot-id', 'elsewhere'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  return { child, out: () => out, exited }
}

async function until(
  lab: Lab,
  cond: (s: LabSnapshot) => boolean,
  what: string,
  timeoutMs: number,
): Promise<LabSnapshot> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const s = lab.snapshot()
    if (cond(s)) return s
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not within ${timeoutMs} ms (workers ` +
          `${JSON.stringify(s.workers.map((w) => [w.id, w.state, w.taskIds.length, w.remote ?? false]))})`,
      )
    await sleep(200)
  }
}

async function untilOutput(f: Follower, pattern: RegExp, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!pattern.test(f.out())) {
    if (Date.now() > deadline)
      throw new Error(`follower output does not match ${pattern} within ${timeoutMs} ms:\n${f.out()}`)
    await sleep(200)
  }
}

const remoteRunning = (id: string) => (s: LabSnapshot) =>
  s.workers.some((w) => w.id === id && w.remote === true && w.state === 'running' && w.taskIds.length > 0)

describe('eoscope worker --follow-lab', () => {
  let lab: Lab | null = null
  const followers: Follower[] = []
  afterAll(async () => {
    for (const f of followers) if (f.child.exitCode === null && f.child.signalCode === null) f.child.kill('SIGKILL')
    await lab?.close()
  })

  it('joins the lab as a remote worker, is killed from it, and follows new settings and a reset', {
    timeout: 600_000,
  }, async () => {
    if (!brokers) throw new Error('no Kafka broker: run these tests with npm run test:kafka')
    lab = await createKafkaLab({
      client: { brokers: brokers.split(','), clientId: 'eoscope-follow-test' },
      workers: 1,
      partitions: 4,
      ratePerSec: 300,
      applicationIdPrefix: 'eoscope-follow',
      validateIntervalMs: 1_000,
    })
    const first = follower('remote-1')
    followers.push(first)
    const appId = lab.snapshot().applicationId!
    await untilOutput(first, new RegExp(`application\\.id ${appId}`), STATE_MS)
    await until(lab, remoteRunning('remote-1'), 'remote-1 owning partitions', STATE_MS)

    // Killed from the lab: the command travels on the commands topic and the worker SIGKILLs itself.
    expect(await lab.execute('killWorker', { workerId: 'remote-1' })).toEqual({ ok: true })
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' })
    const killed = await until(
      lab,
      (s) =>
        s.workers.some((w) => w.id === 'remote-1' && w.state === 'killed') &&
        s.recoveries.some((r) => r.workerId === 'remote-1' && r.t1 !== null),
      'the kill of remote-1 recovered',
      STATE_MS,
    )
    expect(killed.totals.kills).toBe(1)

    // A new follower; the lab changes commit.interval.ms, and the follower restarts with it.
    const second = follower('remote-2')
    followers.push(second)
    await until(lab, remoteRunning('remote-2'), 'remote-2 owning partitions', STATE_MS)
    expect(await lab.execute('setConfig', { 'commit.interval.ms': 250 })).toEqual({ ok: true })
    await untilOutput(second, /commit\.interval\.ms 250, application\.id/, STATE_MS)
    await until(lab, remoteRunning('remote-2'), 'remote-2 back with the new interval', STATE_MS)

    // Nothing doubled or lost through the kill and the restarts (exactly_once).
    const committed = lab.snapshot().totals.committedInput
    const checked = await until(
      lab,
      (s) => (s.correctness?.inputChecked ?? 0) >= committed,
      'the validator past the kill',
      STATE_MS,
    )
    const c = checked.correctness!
    expect({
      duplicates: c.duplicates,
      lost: c.lost,
      abortedReads: c.abortedReads,
      stateMismatches: c.stateMismatches,
    }).toEqual({ duplicates: 0, lost: 0, abortedReads: 0, stateMismatches: 0 })

    // A reset starts a fresh application; the follower moves to it.
    expect(await lab.execute('reset', {})).toEqual({ ok: true })
    const fresh = lab.snapshot().applicationId!
    expect(fresh).not.toBe(appId)
    await untilOutput(second, new RegExp(`application\\.id ${fresh}`), STATE_MS)
    // Joining the fresh application's group waits for its first rebalance to take the
    // follower in: on a busy machine, longer than a state.
    await until(lab, remoteRunning('remote-2'), 'remote-2 in the fresh application', 3 * STATE_MS)

    // The lab shuts down: the follower stops its worker and waits for the next lab instead of
    // recreating the deleted application; SIGTERM then ends it cleanly.
    await lab.close()
    lab = null
    await untilOutput(second, /no lab runs on .* now; waiting for one/, STATE_MS)
    expect(second.child.exitCode).toBeNull()
    second.child.kill('SIGTERM')
    expect(await second.exited).toEqual({ code: 0, signal: null })
  })
})
