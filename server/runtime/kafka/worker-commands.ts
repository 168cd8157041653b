// The commands topic as the worker-process runtime writes it: kills and pauses at a step (and
// kills of workers on other machines) travel to the worker, which acts on itself when it reaches
// the step. One partition, so every worker reads one order.

import type { Logger } from '../../logging.ts'
import type { LogConnection, LogProducer } from '../../log/types.ts'
import type { WorkerCommand } from './kafka-app.ts'

export class WorkerCommands {
  private producer: LogProducer | null = null

  constructor(
    private readonly topic: string,
    private readonly log: Logger,
  ) {}

  /** Opens the producer (at the runtime's start, once its topics exist). */
  open(connection: LogConnection, clientId: string): void {
    this.producer = connection.producer({ clientId, idempotent: false })
  }

  /** Resolves once the cluster has the command. */
  async send(cmd: WorkerCommand): Promise<void> {
    await this.producer?.send([{ topic: this.topic, partition: 0, key: cmd.target, value: JSON.stringify(cmd) }])
  }

  /** Sends in the background; a command the cluster did not take is logged. */
  post(cmd: WorkerCommand): void {
    this.send(cmd).catch((e: unknown) =>
      this.log.warn(
        { err: e, workerId: cmd.target },
        `${cmd.command} command for ${cmd.target} not sent: ${(e as Error).message}`,
      ),
    )
  }
}
