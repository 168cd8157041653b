// No silent loss of a worker: a worker process that exits without the runtime ending it is a
// crash, reported with its cause (the runtime's events, the worker's state, the journal) and
// replaced after restartAfterMs like a killed one. The runtime runs on fake processes here (no
// broker: nothing is started but the slots).

import { EventEmitter } from 'node:events'
import type { ChildProcess } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { defaultStreamsConfig } from '../../../lib/streams-config.ts'
import { SystemTime } from '../../log/time.ts'
import { LabJournal } from '../../lab/journal/lab-journal.ts'
import { JournalRecorder } from '../../lab/journal/journal-recorder.ts'
import type { LabEvent } from '../lab-runtime.ts'
import { crashCause, exitVerdict } from './worker-exit.ts'
import type { SpawnWorker } from './worker-spawn.ts'
import { WorkerProcessRuntime } from './worker-process-runtime.ts'

describe('exitVerdict', () => {
  const base = { state: 'running', stopAsked: false, killAsked: false, code: null, signal: null } as const
  it('a process the runtime SIGKILLed, or told to kill itself, was killed', () => {
    expect(exitVerdict({ ...base, state: 'killed', signal: 'SIGKILL' })).toBe('killed')
    expect(exitVerdict({ ...base, killAsked: true, signal: 'SIGKILL' })).toBe('killed')
  })
  it('a process asked to stop stopped, whatever its status', () => {
    expect(exitVerdict({ ...base, stopAsked: true, code: 0 })).toBe('stopped')
    expect(exitVerdict({ ...base, stopAsked: true, code: 1 })).toBe('stopped')
  })
  it('any other exit is a crash: an error status, a clean status unasked, a signal the runtime did not send', () => {
    expect(exitVerdict({ ...base, code: 1 })).toBe('crashed')
    expect(exitVerdict({ ...base, code: 0 })).toBe('crashed')
    expect(exitVerdict({ ...base, signal: 'SIGKILL' })).toBe('crashed')
    expect(exitVerdict({ ...base, killAsked: true, signal: 'SIGSEGV' })).toBe('crashed')
  })
  it("crashCause: the engine's error, else the last stderr line but stack frames, else the status", () => {
    const stderr = ['eoscope worker worker-3 failed: BROKER_NOT_AVAILABLE: commit offsets', '    at x (y.js:1:1)']
    expect(crashCause({ reportedError: 'BROKER_NOT_AVAILABLE: boom', stderr, code: 1, signal: null })).toBe(
      'BROKER_NOT_AVAILABLE: boom',
    )
    expect(crashCause({ reportedError: null, stderr, code: 1, signal: null })).toBe(
      'exited with code 1: eoscope worker worker-3 failed: BROKER_NOT_AVAILABLE: commit offsets',
    )
    expect(crashCause({ reportedError: null, stderr: [], code: null, signal: 'SIGSEGV' })).toBe('ended by SIGSEGV')
  })
})

/** Fake worker processes: each spawn is recorded; a test ends one with exit(code, signal). */
function fakeProcesses() {
  let pid = 1000
  const spawned: { args: string[]; exit: (code: number | null, signal: NodeJS.Signals | null) => void }[] = []
  const spawn: SpawnWorker = (slot, args, _logs, _log, onExit) => {
    const child = Object.assign(new EventEmitter(), {
      pid: ++pid,
      exitCode: null as number | null,
      signalCode: null as NodeJS.Signals | null,
      kill(signal?: NodeJS.Signals) {
        queueMicrotask(() => exit(signal === 'SIGTERM' ? 0 : null, signal === 'SIGTERM' ? null : (signal ?? null)))
        return true
      },
    }) as unknown as ChildProcess
    const exit = (code: number | null, signal: NodeJS.Signals | null) => {
      Object.assign(child, { exitCode: code, signalCode: signal })
      child.emit('exit', code, signal)
    }
    slot.child = child
    slot.stderr = []
    slot.exited = new Promise((resolve) =>
      child.on('exit', (code, signal) => {
        onExit(code, signal)
        resolve()
      }),
    )
    spawned.push({ args, exit })
    return child
  }
  return { spawn, spawned }
}

function runtimeOn(spawn: SpawnWorker, restartFailed?: boolean) {
  return new WorkerProcessRuntime(new SystemTime(), {
    config: { ...defaultStreamsConfig('at_least_once'), 'application.id': 'crash-test' },
    workers: 2,
    partitions: 4,
    ratePerSec: 10,
    maxRecords: 10,
    keys: 4,
    seed: 1,
    restartAfterMs: 20,
    restartFailed,
    client: { brokers: ['127.0.0.1:1'], clientId: 'crash-test' },
    spawnWorker: spawn,
  })
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('a worker process that exits without the runtime ending it', () => {
  it('is reported as a crash with its cause, in the events, its state and the journal, and replaced', async () => {
    const { spawn, spawned } = fakeProcesses()
    const runtime = runtimeOn(spawn)
    const events: LabEvent[] = []
    const journal = new LabJournal(runtime.time)
    const recorder = new JournalRecorder(journal, () => ({ wording: runtime.wording, topics: runtime.topics }))
    runtime.onEvent((e) => {
      events.push(e)
      recorder.onEvent(e)
    })
    try {
      runtime.addWorker()
      const slot = runtime.addWorker()
      expect(spawned).toHaveLength(2)
      slot.stderr.push('eoscope worker worker-2 failed: BROKER_NOT_AVAILABLE: commit offsets of group crash-test')
      spawned[1]!.exit(1, null)

      expect(runtime.crashes).toHaveLength(1)
      const crash = runtime.crashes[0]!
      expect(crash).toMatchObject({ workerId: 'worker-2', slotId: 'worker-2', exitCode: 1, signal: null })
      expect(crash.cause).toBe(
        'exited with code 1: eoscope worker worker-2 failed: BROKER_NOT_AVAILABLE: commit offsets of group crash-test',
      )
      expect(events.some((e) => e.type === 'worker-crashed' && e.workerId === 'worker-2')).toBe(true)
      const status = events.findLast((e) => e.type === 'worker-status' && e.workerId === 'worker-2')
      expect(status?.type === 'worker-status' && status.status).toMatchObject({ state: 'crashed' })
      expect(status?.type === 'worker-status' && status.status.error).toContain('BROKER_NOT_AVAILABLE')
      const entry = journal
        .page({ after: 0, limit: 100, categories: null })
        .entries.find((x) => x.fact.kind === 'worker-stopped')
      expect(entry?.label).toContain('worker-2 crashed (exit code 1)')
      expect(entry?.fact).toMatchObject({ reason: 'crash', exitCode: 1 })
      expect(runtime.kills).toBe(0)

      await sleep(100)
      expect(spawned, 'replaced after restartAfterMs').toHaveLength(3)
      expect(slot.worker!.id).toBe('worker-2.2')
      expect(runtime.liveSlots()).toHaveLength(2)
    } finally {
      await runtime.close()
    }
  })

  it('a SIGKILL the runtime sent is a kill, not a crash; a stop it asked for is neither', async () => {
    const { spawn, spawned } = fakeProcesses()
    const runtime = runtimeOn(spawn)
    try {
      runtime.addWorker()
      runtime.addWorker()
      expect(runtime.kill('worker-1')).toBe(true)
      await sleep(10)
      expect(runtime.kills).toBe(1)
      expect(runtime.crashes).toEqual([])
      expect(await runtime.removeWorker()).not.toBeNull()
      expect(runtime.crashes).toEqual([])
      await sleep(100)
      expect(spawned, 'the killed worker replaced, the removed one not').toHaveLength(3)
    } finally {
      await runtime.close()
    }
  })

  it('with restartFailed false the crash is reported and its slot stays empty', async () => {
    const { spawn, spawned } = fakeProcesses()
    const runtime = runtimeOn(spawn, false)
    try {
      runtime.addWorker()
      spawned[0]!.exit(null, 'SIGSEGV')
      await sleep(100)
      expect(runtime.crashes.map((c) => c.cause)).toEqual(['ended by SIGSEGV'])
      expect(spawned).toHaveLength(1)
      expect(runtime.liveSlots()).toHaveLength(0)
    } finally {
      await runtime.close()
    }
  })
})
