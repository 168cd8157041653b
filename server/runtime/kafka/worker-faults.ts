// How the worker-process runtime kills and pauses a worker: by signal when the process is its own
// and the fault is for now, by a command on the commands topic when the worker must do it itself
// at a step (kill-at-step, pause-at-step) or runs on another machine.

import type { Step } from '../../../lib/lab-protocol.ts'
import type { Time } from '../../log/time.ts'
import type { WorkerCommands } from './worker-commands.ts'
import { signalSlot, type KafkaSlot } from './worker-spawn.ts'

export interface FaultTarget {
  readonly time: Time
  readonly commands: WorkerCommands
  slotOf(workerId: string): KafkaSlot | undefined
  isRemote(workerId: string): boolean
  /** A kill done here: counted, tracked for recovery, published. */
  killedHere(slot: KafkaSlot, atMs: number): void
  pausedHere(workerId: string, atMs: number): void
}

/** false: no such live worker; true: killed by SIGKILL here; a promise: a kill command on its way. */
export function killWorker(t: FaultTarget, workerId: string, step: Step | null): boolean | Promise<void> {
  const slot = t.slotOf(workerId)
  const now = t.time.now()
  if (!slot?.child || (slot.process.state !== 'running' && slot.process.state !== 'paused')) {
    if (!t.isRemote(workerId)) return false
    return t.commands.send(
      step === null
        ? { target: workerId, command: 'kill', issuedAtMs: now }
        : { target: workerId, command: 'kill-at-step', step, issuedAtMs: now },
    )
  }
  if (step !== null && slot.process.state === 'running')
    return t.commands.send({ target: workerId, command: 'kill-at-step', step, issuedAtMs: now })
  slot.process.state = 'killed'
  slot.child.kill('SIGKILL')
  t.killedHere(slot, now)
  return true
}

/**
 * SIGSTOP now, or (step given) the worker stops itself when it next reaches that step: no
 * heartbeats, a zombie once its session expires.
 */
export function pauseWorker(t: FaultTarget, workerId: string, step: Step | null): boolean {
  if (step !== null) {
    if (t.slotOf(workerId)?.process.state !== 'running') return false
    t.commands.post({ target: workerId, command: 'pause-at-step', step, issuedAtMs: t.time.now() })
    return true
  }
  const paused = signalSlot(t.slotOf(workerId), { from: 'running', signal: 'SIGSTOP', to: 'paused' })
  if (paused) t.pausedHere(workerId, t.time.now())
  return paused
}
