// The brokers scripts/kafka-cluster.sh started on this machine, found by their pid and port files
// in its directory (KAFKA_DIR): broker-ID.pid, broker-ID.port and cluster.env. Only those may be
// killed (SIGKILL) and restarted; anything else is refused with the reason.

import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { BrokerControlRefused } from '../../broker-control.ts'

const SCRIPT = fileURLToPath(new URL('../../../../scripts/kafka-cluster.sh', import.meta.url))

export interface LocalBroker {
  id: number
  address: string
  /** The pid of its running process, null when it does not run. */
  pid: number | null
}

/** The host processes eoscope may act on: injected so the refusals are tested without a broker. */
export interface ProcessTable {
  /** The command line of a running process, or null. */
  commandLine(pid: number): string | null
  kill(pid: number, signal: 'SIGKILL'): void
}

export const HOST_PROCESSES: ProcessTable = {
  commandLine(pid) {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')
    } catch {
      return null
    }
  },
  kill: (pid, signal) => process.kill(pid, signal),
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim()
  } catch {
    return null
  }
}

export class LocalBrokers {
  constructor(
    /** scripts/kafka-cluster.sh's KAFKA_DIR. */
    readonly dir: string,
    private readonly processes: ProcessTable = HOST_PROCESSES,
    private readonly restartScript: (id: number, env: Record<string, string>) => Promise<void> = runRestart,
  ) {}

  /** Every broker with a port file in the directory, by id. */
  list(): LocalBroker[] {
    let names: string[]
    try {
      names = readdirSync(this.dir)
    } catch {
      return []
    }
    return names
      .map((n) => /^broker-(\d+)\.port$/.exec(n))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b)
      .map((id) => ({
        id,
        address: `127.0.0.1:${readText(join(this.dir, `broker-${id}.port`))}`,
        pid: this.livePid(id),
      }))
  }

  /** The pid in broker-ID.pid when that process runs and is a Kafka broker of this directory. */
  private livePid(id: number): number | null {
    const pid = Number(readText(join(this.dir, `broker-${id}.pid`)))
    if (!Number.isInteger(pid) || pid <= 0) return null
    const cmd = this.processes.commandLine(pid)
    return cmd?.includes('kafka.Kafka') && cmd.includes(join(this.dir, `node-${id}`)) ? pid : null
  }

  private known(id: number): LocalBroker {
    const b = this.list().find((x) => x.id === id)
    if (!b)
      throw new BrokerControlRefused(
        `broker ${id} was not started by scripts/kafka-cluster.sh in ${this.dir} (no broker-${id}.port there): ` +
          `eoscope kills and restarts only its own local brokers`,
      )
    return b
  }

  /** SIGKILL: no controlled shutdown; its leaderships and coordinators move when the controller fences it. */
  kill(id: number): number {
    const b = this.known(id)
    if (b.pid === null)
      throw new BrokerControlRefused(
        `broker ${id} is not running (no live process for ${join(this.dir, `broker-${id}.pid`)}): restart it instead`,
      )
    this.processes.kill(b.pid, 'SIGKILL')
    return b.pid
  }

  /** Why a restart of broker `id` would be refused, or null. */
  restartRefusal(id: number): string | null {
    try {
      this.known(id)
      this.clusterEnv()
      return null
    } catch (e) {
      if (e instanceof BrokerControlRefused) return e.message
      throw e
    }
  }

  /** Starts a stopped or killed broker again (a running one is stopped first), through the script. */
  async restart(id: number): Promise<void> {
    this.known(id)
    const env = this.clusterEnv()
    await this.restartScript(id, { ...env, KAFKA_DIR: this.dir })
  }

  /** The KAFKA_PORT and KAFKA_BROKERS_COUNT the cluster was started with (cluster.env). */
  private clusterEnv(): Record<string, string> {
    const text = readText(join(this.dir, 'cluster.env'))
    if (text === null)
      throw new BrokerControlRefused(
        `${join(this.dir, 'cluster.env')} is missing: start the cluster with scripts/kafka-cluster.sh start`,
      )
    const env: Record<string, string> = {}
    for (const line of text.split('\n')) {
      const m = /^(KAFKA_PORT|KAFKA_BROKERS_COUNT)=(\d+)$/.exec(line.trim())
      if (m) env[m[1]!] = m[2]!
    }
    if (!env.KAFKA_PORT || !env.KAFKA_BROKERS_COUNT)
      throw new BrokerControlRefused(
        `${join(this.dir, 'cluster.env')} does not name KAFKA_PORT and KAFKA_BROKERS_COUNT`,
      )
    return env
  }
}

async function runRestart(id: number, env: Record<string, string>): Promise<void> {
  try {
    await promisify(execFile)('bash', [SCRIPT, 'restart', String(id)], {
      env: { ...process.env, ...env },
      timeout: 180_000,
    })
  } catch (e) {
    // The script says why on stderr ("port ... is in use", "not ready within ..."): that is the error.
    const said = String((e as { stderr?: unknown }).stderr ?? '')
      .trim()
      .split('\n')
      .at(-1)
    throw new Error(`scripts/kafka-cluster.sh restart ${id} failed: ${said || (e as Error).message}`, { cause: e })
  }
}
