// How a worker process's exit reads to the runtime that supervises it. A process the runtime
// SIGKILLed (or that killed itself on the runtime's command) was killed; one the runtime asked to
// stop (SIGTERM: new settings, a removed slot, the end of the run) stopped; any other exit is a
// crash, whatever its code or signal, and is reported with its cause: no worker is lost silently.

import type { KafkaProcessState } from './worker-spawn.ts'

export type ExitVerdict = 'killed' | 'stopped' | 'crashed'

export interface ExitFacts {
  /** The slot's process state when the exit was seen ('killed' once the runtime sent SIGKILL). */
  state: KafkaProcessState
  /** The runtime asked this process to stop, or is itself stopping or closing. */
  stopAsked: boolean
  /** The runtime told this worker to kill itself (at a step, through the commands topic). */
  killAsked: boolean
  code: number | null
  signal: NodeJS.Signals | null
}

export function exitVerdict(x: ExitFacts): ExitVerdict {
  if (x.state === 'killed') return 'killed'
  if (x.signal === 'SIGKILL' && x.killAsked) return 'killed'
  if (x.stopAsked) return 'stopped'
  return 'crashed'
}

/** Why a worker crashed: its engine's error when it reported one, else its last stderr line, else how it ended. */
export function crashCause(x: {
  reportedError: string | null
  stderr: readonly string[]
  code: number | null
  signal: NodeJS.Signals | null
}): string {
  const ended = x.signal !== null ? `ended by ${x.signal}` : `exited with code ${x.code}`
  if (x.reportedError) return x.reportedError
  const last = [...x.stderr].reverse().find((l) => l.trim().length > 0 && !l.startsWith('    at '))
  return last ? `${ended}: ${last.slice(0, 300)}` : ended
}
