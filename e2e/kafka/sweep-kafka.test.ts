// `eoscope sweep --backend kafka` against a real broker (npm run test:kafka starts one): one
// commit interval, both guarantees, one repetition. Every lab gets its own application.id, group
// and topics, so the cells cannot see each other's data.

import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, inject, it } from 'vitest'
import { KAFKA_GROUP_TIMEOUTS } from '../../server/log/kafka/capabilities.ts'
import { execWatched } from './exec-watched.ts'

const brokers = inject('kafkaBrokers')
const BIN = fileURLToPath(new URL('../../bin/eoscope.mjs', import.meta.url))
/**
 * The sweep prints a line at each stage it reaches (a window measured, a kill, a recovery): it may
 * go a kill's detection (session.timeout.ms) and a measuring window without one, so it fails when
 * it prints nothing for twelve session timeouts, or past fifteen minutes on a very busy machine.
 */
const STALL_MS = 12 * KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs
const SWEEP_BOUND_MS = 900_000

interface Row {
  guarantee: string
  commitIntervalMs: number
  throughputPerSec: { median: number | null; min: number | null; max: number | null }
  latencyP50Ms: number | null
  recoveryMs: number | null
  phases: Record<'detection' | 'rebalance' | 'fence' | 'restore' | 'catchUp', number | null>
  duplicatesPerKill: number | null
}

async function sweep(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  if (!brokers) throw new Error('no Kafka broker: run these tests with npm run test:kafka')
  return execWatched([BIN, 'sweep', '--backend', 'kafka', '--brokers', brokers, '--no-save', ...args], {
    stallMs: STALL_MS,
    boundMs: SWEEP_BOUND_MS,
  })
}

describe('eoscope sweep --backend kafka', () => {
  it('measures both guarantees at one commit interval: throughput, recovery phases, no duplicates under exactly_once', {
    timeout: SWEEP_BOUND_MS + 30_000,
  }, async () => {
    const r = await sweep([
      '--intervals',
      '100',
      '--guarantees',
      'at_least_once,exactly_once',
      '--repeat',
      '1',
      '--json',
    ])
    if (r.code !== 0) throw new Error(`eoscope sweep failed (exit ${r.code}):\n${r.stdout}\n${r.stderr.slice(-4000)}`)
    const out = JSON.parse(r.stdout) as {
      status: string
      backend: string
      notes?: string[]
      rows: Row[]
      record: { cells: { guarantee: string; repetitions: { lost: number | null; killedWorker: string | null }[] }[] }
    }
    expect(out.status).toBe('done')
    expect(out.backend).toBe('kafka')
    expect(out.notes?.length).toBeGreaterThan(0)
    expect(out.rows.map((x) => [x.guarantee, x.commitIntervalMs])).toEqual([
      ['at_least_once', 100],
      ['exactly_once', 100],
    ])
    for (const row of out.rows) {
      expect(row.throughputPerSec.median!, row.guarantee).toBeGreaterThan(0)
      expect(row.latencyP50Ms, row.guarantee).not.toBeNull()
      expect(row.recoveryMs!, row.guarantee).toBeGreaterThan(0)
      for (const [phase, ms] of Object.entries(row.phases)) expect(ms, `${row.guarantee} ${phase}`).not.toBeNull()
      // The phases add up to the recovery time (each rounded to 0.1 ms in the rows).
      const sum = Object.values(row.phases).reduce<number>((a, b) => a + b!, 0)
      expect(Math.abs(sum - row.recoveryMs!)).toBeLessThan(1)
    }
    const eos = out.rows.find((x) => x.guarantee === 'exactly_once')!
    expect(eos.duplicatesPerKill).toBe(0)
    expect(out.rows.find((x) => x.guarantee === 'at_least_once')!.phases.fence).toBe(0)
    for (const c of out.record.cells)
      for (const rep of c.repetitions) expect(rep.killedWorker, c.guarantee).not.toBeNull()
  })

  it('refuses kafka without brokers (exit 2)', async () => {
    const none = await promisify(execFile)(
      process.execPath,
      [BIN, 'sweep', '--backend', 'kafka', '--intervals', '100'],
      { env: { ...process.env, KAFKA_BROKERS: '' } },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    )
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('--brokers')
  })
})
