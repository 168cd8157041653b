import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BrokerControlRefused } from '../../broker-control.ts'
import { LocalBrokers, type ProcessTable } from './local-brokers.ts'

let dir: string
let killed: number[]
let restarted: { id: number; env: Record<string, string> }[]
/** Pids 101 and 103 are brokers of the directory; 555 runs something else. */
const processes = (): ProcessTable => ({
  commandLine: (pid) =>
    ({
      101: `java -cp libs/* kafka.Kafka ${dir}/node-1/server.properties`,
      103: `java kafka.Kafka ${dir}/node-3/server.properties`,
      555: 'vim notes.txt',
    })[pid] ?? null,
  kill: (pid) => void killed.push(pid),
})
const brokers = () => new LocalBrokers(dir, processes(), async (id, env) => void restarted.push({ id, env }))

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'eoscope-local-brokers-'))
  killed = []
  restarted = []
  for (const [id, pid] of [
    [1, 101],
    [2, 102],
    [3, 555],
  ]) {
    writeFileSync(join(dir, `broker-${id}.pid`), `${pid}\n`)
    writeFileSync(join(dir, `broker-${id}.port`), `${26191 + id!}\n`)
  }
  writeFileSync(join(dir, 'cluster.env'), 'KAFKA_PORT=26192\nKAFKA_BROKERS_COUNT=3\n')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('LocalBrokers', () => {
  it('lists the brokers of its directory, with a pid only where that pid runs a Kafka broker of this directory', () => {
    expect(brokers().list()).toEqual([
      { id: 1, address: '127.0.0.1:26192', pid: 101 },
      { id: 2, address: '127.0.0.1:26193', pid: null },
      { id: 3, address: '127.0.0.1:26194', pid: null },
    ])
  })

  it('kills a running broker with SIGKILL', () => {
    expect(brokers().kill(1)).toBe(101)
    expect(killed).toEqual([101])
  })

  const refusesForeignKill =
    'refuses to kill a broker it did not start, a broker that is down, or a pid that is not its broker, killing ' +
    'nothing'
  it(refusesForeignKill, () => {
    expect(() => brokers().kill(7)).toThrow(BrokerControlRefused)
    expect(() => brokers().kill(7)).toThrow(/not started by scripts\/kafka-cluster.sh/)
    expect(() => brokers().kill(2)).toThrow(/not running/)
    expect(() => brokers().kill(3)).toThrow(/not running/)
    expect(killed).toEqual([])
  })

  it("restarts a broker through the script with the cluster's port and size", async () => {
    await brokers().restart(2)
    expect(restarted).toEqual([{ id: 2, env: { KAFKA_PORT: '26192', KAFKA_BROKERS_COUNT: '3', KAFKA_DIR: dir } }])
  })

  it('refuses a restart of an unknown broker, or without cluster.env, starting nothing', async () => {
    await expect(brokers().restart(9)).rejects.toThrow(/not started by scripts\/kafka-cluster.sh/)
    rmSync(join(dir, 'cluster.env'))
    await expect(brokers().restart(1)).rejects.toThrow(/cluster.env is missing/)
    expect(restarted).toEqual([])
  })

  it('lists nothing for a directory that does not exist', () => {
    expect(new LocalBrokers(join(dir, 'nowhere'), processes()).list()).toEqual([])
  })
})
