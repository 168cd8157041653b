// Commands reach the lab one at a time, in arrival order, checked by their zod schema first; a
// refused or failed command answers { ok: false, error } and changes nothing.

import {
  type CommandName,
  type CommandPayload,
  type CommandResult,
  type LabCommand,
  type MarkerKind,
  parseCommand,
  type Step,
} from '../../lib/lab-protocol.ts'
import {
  ConfigException,
  defaultStreamsConfig,
  type StreamsConfig,
  withConfigChange,
} from '../../lib/streams-config.ts'
import { guaranteeRefusal, UnsupportedOnBackendError } from '../log/capabilities.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'

/**
 * The streams settings a setConfig asks for, checked by Kafka's rules (throws ConfigException,
 * nothing changed then). A new guarantee without a commit.interval.ms takes that guarantee's
 * Kafka Streams default, as a fresh application would.
 */
export function configAfter(
  current: StreamsConfig,
  change: Omit<
    CommandPayload<'setConfig'>,
    'inputRatePerSec' | 'workers' | 'default.deserialization.exception.handler'
  >,
): StreamsConfig {
  const next = withConfigChange(current, change)
  const g = change['processing.guarantee']
  if (g && change['commit.interval.ms'] === undefined && g !== current['processing.guarantee']) {
    next['commit.interval.ms'] = withConfigChange(next, {
      'commit.interval.ms': defaultStreamsConfig(g)['commit.interval.ms'],
    })['commit.interval.ms']
  }
  return next
}

export interface CommandTarget {
  /** Why no command runs now (a lab shutting down), or null. */
  refusal(): string | null
  /** Runs one validated command; returns a result only to refuse it. */
  run(command: LabCommand): Promise<CommandResult | undefined>
  /** After a command ran: a fresh snapshot. */
  published(): void
}

export class CommandQueue {
  private queue: Promise<unknown> = Promise.resolve()

  constructor(private readonly target: CommandTarget) {}

  execute(name: string, payload: unknown): Promise<CommandResult> {
    const run = this.queue.then(() => this.executeNow(name, payload))
    this.queue = run.catch(() => undefined)
    return run
  }

  /** Settles once the commands queued so far have run. */
  settled(): Promise<unknown> {
    return this.queue
  }

  private async executeNow(name: string, payload: unknown): Promise<CommandResult> {
    const parsed = parseCommand(name, payload)
    if (!parsed.ok) return parsed
    const refused = this.target.refusal()
    if (refused !== null) return { ok: false, error: refused }
    try {
      const result = await this.target.run(parsed)
      if (result) return result
      this.target.published()
      return { ok: true }
    } catch (e) {
      if (e instanceof ConfigException || e instanceof UnsupportedOnBackendError) return { ok: false, error: e.message }
      return { ok: false, error: `command ${parsed.name} failed: ${e instanceof Error ? e.message : 'internal error'}` }
    }
  }
}

/** A setConfig on a runtime: new streams settings restart every worker cleanly; rate and worker count apply at once. */
export async function applySetConfig(
  rt: LabRuntime,
  p: CommandPayload<'setConfig'>,
  lab: { mark(kind: MarkerKind, label: string): void; rate(perSec: number): void },
): Promise<CommandResult | undefined> {
  const { inputRatePerSec, workers, 'default.deserialization.exception.handler': handler, ...streams } = p
  if (Object.keys(streams).length > 0 || (handler !== undefined && handler !== rt.deserializationPolicy)) {
    const asked = streams['processing.guarantee']
    const refused = asked === undefined ? null : guaranteeRefusal(rt.connection.capabilities, asked)
    if (refused !== null) return { ok: false, error: refused }
    const next = configAfter(rt.config, streams) // throws ConfigException; nothing changed then
    await rt.reconfigure(next, handler ?? rt.deserializationPolicy)
    const changes = { ...streams, ...(handler ? { 'default.deserialization.exception.handler': handler } : {}) }
    lab.mark(
      'config',
      `${Object.entries(changes)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}${rt.wording.restarted}`,
    )
  }
  if (inputRatePerSec !== undefined) {
    lab.rate(inputRatePerSec)
    rt.generator.setRate(inputRatePerSec)
    lab.mark('config', `input rate ${inputRatePerSec}/s`)
  }
  if (workers !== undefined) {
    while (rt.slots.length < workers) rt.addWorker()
    while (rt.slots.length > workers && (await rt.removeWorker())) {
      // stopped cleanly, one at a time
    }
    lab.mark('config', `workers=${workers}`)
  }
}

/**
 * "Skip it and go on" after a poison record stopped tasks under the fail policy: the handler
 * becomes log-and-continue and every worker restarts cleanly (the stopped ones too), so the record
 * goes to the dead-letter topic and processing resumes from the committed offsets: nothing is lost.
 */
export async function skipPoison(rt: LabRuntime, mark: (label: string) => void): Promise<CommandResult | undefined> {
  const stopped = rt.slots.filter(
    (s) => s.process.state === 'exited' || s.worker?.state === 'failed' || s.worker?.state === 'stopped',
  ).length
  if (stopped === 0 && rt.deserializationPolicy === 'log-and-continue')
    return {
      ok: false,
      error: 'nothing to skip: no worker is stopped and poison records already go to the dead-letter topic',
    }
  await rt.reconfigure(rt.config, 'log-and-continue')
  mark(
    `default.deserialization.exception.handler=log-and-continue: poison records go to the dead-letter topic; ` +
      `${stopped} stopped worker(s) restarted${rt.wording.restarted}`,
  )
}

export async function injectPoison(rt: LabRuntime, count: number, mark: (label: string) => void): Promise<void> {
  await rt.injectPoison(count)
  mark(
    `${count} poison record(s) appended to the input ` +
      `(default.deserialization.exception.handler=${rt.deserializationPolicy})`,
  )
}

export type WorkerCommandName = 'killWorker' | 'pauseWorker' | 'resumeWorker'
/** A validated worker command: its payload narrows with its name. */
export type WorkerCommand = Extract<LabCommand, { name: WorkerCommandName }>

/** Whether a validated command is a worker's. */
export function isWorkerCommand(c: LabCommand): c is WorkerCommand {
  return (WORKER_COMMANDS as readonly string[]).includes(c.name)
}
export const WORKER_COMMANDS: readonly CommandName[] = [
  'killWorker',
  'pauseWorker',
  'resumeWorker',
] satisfies WorkerCommandName[]

/** Kill (now or when it next reaches a step), pause or resume one worker; `resumed` journals a wake-up. */
export async function workerCommand(
  rt: LabRuntime,
  command: WorkerCommand,
  resumed: (workerId: string) => void,
): Promise<CommandResult | undefined> {
  switch (command.name) {
    case 'killWorker': {
      const { workerId, step } = command.payload
      if (!(await rt.killConfirmed(workerId, (step ?? null) as Step | null)))
        return { ok: false, error: `no live worker ${workerId}` }
      return
    }
    case 'pauseWorker': {
      const { workerId } = command.payload
      if (rt.isRemote(workerId))
        return {
          ok: false,
          error: `${workerId} runs on another machine: only this server's own worker processes can be paused (SIGSTOP)`,
        }
      if (!rt.pause(workerId)) return { ok: false, error: `no running worker ${workerId} to pause` }
      return
    }
    case 'resumeWorker': {
      const { workerId } = command.payload
      if (!rt.resume(workerId)) return { ok: false, error: `no paused worker ${workerId}` }
      resumed(workerId)
      return
    }
  }
}
