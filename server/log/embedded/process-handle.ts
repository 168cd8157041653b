// An embedded process: what SIGKILL and SIGSTOP/SIGCONT are to a worker in its own OS process.
// Every client call of the process passes through its gate: a killed process's calls throw
// ProcessKilledError (the process is gone, nothing it would have done next happens), a paused
// process's calls wait until it is resumed, and then go on as a zombie's would.

import { ProcessKilledError } from '../errors.ts'

export type ProcessState = 'running' | 'paused' | 'killed'

export class ProcessHandle {
  private current: ProcessState = 'running'
  private resumeWaiters: (() => void)[] = []
  killedAtMs: number | null = null

  constructor(readonly id: string) {}

  get state(): ProcessState {
    return this.current
  }
  get alive(): boolean {
    return this.current !== 'killed'
  }

  kill(nowMs: number): void {
    if (this.current === 'killed') return
    this.current = 'killed'
    this.killedAtMs = nowMs
    this.wake()
  }
  pause(): void {
    if (this.current === 'running') this.current = 'paused'
  }
  resume(): void {
    if (this.current !== 'paused') return
    this.current = 'running'
    this.wake()
  }
  private wake(): void {
    const waiters = this.resumeWaiters
    this.resumeWaiters = []
    for (const w of waiters) w()
  }

  /** Throws if killed; waits while paused. Called before and after every request. */
  async gate(): Promise<void> {
    while (this.current === 'paused') await new Promise<void>((resolve) => this.resumeWaiters.push(resolve))
    if (this.current === 'killed') throw new ProcessKilledError(this.id)
  }
  /** The synchronous half of the gate, for code that is not at an await. */
  check(): void {
    if (this.current === 'killed') throw new ProcessKilledError(this.id)
  }
}
