// GET /metrics over the real lab: the exposition parses, names every figure, and the values move
// with the lab (throughput, commits, a kill and its recovery, dropped acks, socket clients, commands).

import { io as connect, type Socket } from 'socket.io-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLab, type Lab } from '../lab/index.ts'
import type { EoscopeHttp } from './app.ts'
import { listenOnLoopback } from './__fixtures__/loopback.ts'

let http: EoscopeHttp
let lab: Lab
let url: string

beforeAll(async () => {
  lab = await createLab({ ratePerSec: 400, snapshotIntervalMs: 50, validateIntervalMs: 500 })
  ;({ http, url } = await listenOnLoopback({
    lab,
    policy: { token: null, lockReads: false, controlRate: { perSec: 100, burst: 100 } },
  }))
}, 60_000)

afterAll(async () => {
  await http.close()
  await lab.close()
})

type Sample = { name: string; labels: Record<string, string>; value: number }

/** Parses the Prometheus text format (0.0.4): HELP/TYPE lines and samples. */
function parseExposition(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>()
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '') continue
    const t = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line)
    if (t) {
      types.set(t[1]!, t[2]!)
      continue
    }
    if (line.startsWith('# HELP ')) continue
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m) throw new Error(`not an exposition line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!
    // Go's ParseFloat (Prometheus' parser) reads NaN and Inf in any case.
    const raw = m[3]!.toLowerCase()
    const value =
      raw === '+inf' || raw === 'inf' ? Infinity : raw === '-inf' ? -Infinity : raw === 'nan' ? NaN : Number(raw)
    if (Number.isNaN(value) && raw !== 'nan') throw new Error(`bad value in: ${line}`)
    samples.push({ name: m[1]!, labels, value })
  }
  return { types, samples }
}

async function scrape() {
  const r = await fetch(`${url}/metrics`)
  expect(r.status).toBe(200)
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
  const parsed = parseExposition(await r.text())
  const value = (name: string, labels: Record<string, string> = {}) => {
    const s = parsed.samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v))
    return s?.value
  }
  return { ...parsed, value }
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('GET /metrics', () => {
  it('names every figure with its type', async () => {
    await until('a validator run', async () => lab.snapshot().correctness !== null)
    const { types } = await scrape()
    const expected: Record<string, string> = {
      eoscope_processed_records_per_second: 'gauge',
      eoscope_visible_output_records_per_second: 'gauge',
      eoscope_committed_input_records_total: 'counter',
      eoscope_input_records_total: 'counter',
      eoscope_transactions_committed_total: 'counter',
      eoscope_transactions_aborted_total: 'counter',
      eoscope_transactions_open: 'gauge',
      eoscope_recoveries_total: 'counter',
      eoscope_recovery_duration_ms: 'histogram',
      eoscope_recovery_phase_duration_ms: 'histogram',
      eoscope_last_recovery_phase_ms: 'gauge',
      eoscope_validator_duplicates: 'gauge',
      eoscope_validator_lost: 'gauge',
      eoscope_validator_aborted_reads: 'gauge',
      eoscope_validator_state_mismatches: 'gauge',
      eoscope_validator_open_transactions: 'gauge',
      eoscope_socket_clients: 'gauge',
      eoscope_worker_kills_total: 'counter',
      eoscope_dropped_acks_total: 'counter',
      eoscope_commands_total: 'counter',
      eoscope_rejected_requests_total: 'counter',
      eoscope_workers: 'gauge',
      eoscope_stopped_tasks: 'gauge',
      eoscope_failed_stream_threads: 'gauge',
      eoscope_input_lag_records: 'gauge',
      eoscope_lab_info: 'gauge',
      process_resident_memory_bytes: 'gauge',
    }
    for (const [name, type] of Object.entries(expected)) expect(types.get(name), name).toBe(type)
  })

  const movesWithLab =
    'moves with the lab: throughput, commits, validator, a kill and its recovery, dropped acks, clients, commands'
  it(movesWithLab, async () => {
    const first = await scrape()
    expect(first.value('eoscope_lab_info', { backend: 'embedded', guarantee: 'exactly_once' })).toBe(1)
    expect(first.value('eoscope_workers', { state: 'running' })).toBe(3)
    expect(first.value('eoscope_validator_duplicates')).toBe(0)
    expect(first.value('eoscope_validator_lost')).toBe(0)
    // The validator reads every 2 s: its first check is waited for like the rest, not read once.
    const later = await until('throughput, commits and a validator check', async () => {
      const s = await scrape()
      return (
        (s.value('eoscope_processed_records_per_second') ?? 0) > 0 &&
        s.value('eoscope_committed_input_records_total')! > first.value('eoscope_committed_input_records_total')! &&
        s.value('eoscope_transactions_committed_total')! > first.value('eoscope_transactions_committed_total')! &&
        (s.value('eoscope_validator_input_checked') ?? 0) > 0 &&
        s
      )
    })
    expect(later.value('eoscope_validator_input_checked')).toBeGreaterThan(0)

    // A socket client is counted while connected.
    const c: Socket = connect(url, { transports: ['websocket'], reconnection: false, forceNew: true })
    await new Promise<void>((r) => c.on('connect', () => r()))
    expect((await scrape()).value('eoscope_socket_clients')).toBe(1)

    // A kill over the socket, dropped acks over REST, and a refused command.
    expect(await c.emitWithAck('command', 'killWorker', { workerId: lab.snapshot().workers[0]!.id })).toEqual({
      ok: true,
    })
    expect(
      (
        await fetch(`${url}/api/faults/drop-acks`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"count":2}',
        })
      ).status,
    ).toBe(200)
    expect((await c.emitWithAck('command', 'setConfig', { workers: 99 })).ok).toBe(false)
    expect(
      (
        await fetch(`${url}/api/lab/config`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{',
        })
      ).status,
    ).toBe(400)
    const afterKill = await scrape()
    expect(afterKill.value('eoscope_worker_kills_total')).toBe(1)
    expect(afterKill.value('eoscope_commands_total', { command: 'killWorker', via: 'socket', outcome: 'ok' })).toBe(1)
    expect(afterKill.value('eoscope_commands_total', { command: 'dropAcks', via: 'rest', outcome: 'ok' })).toBe(1)
    expect(afterKill.value('eoscope_commands_total', { command: 'setConfig', via: 'socket', outcome: 'error' })).toBe(1)
    expect(afterKill.value('eoscope_commands_total', { command: 'setConfig', via: 'rest', outcome: 'error' })).toBe(1)
    c.disconnect()

    const recovered = await until(
      'the recovery and the dropped acks',
      async () => {
        const s = await scrape()
        return s.value('eoscope_recoveries_total') === 1 && s.value('eoscope_dropped_acks_total') === 2 && s
      },
      90_000,
    )
    expect(recovered.value('eoscope_recovery_duration_ms_count')).toBe(1)
    expect(recovered.value('eoscope_recovery_duration_ms_sum')).toBeGreaterThan(0)
    expect(recovered.value('eoscope_recovery_phase_duration_ms_count', { phase: 'detection' })).toBe(1)
    expect(recovered.value('eoscope_last_recovery_phase_ms', { phase: 'detection' })).toBeGreaterThan(0)
    expect(recovered.value('eoscope_last_recovery_ms')).toBeGreaterThan(0)
    expect(recovered.value('eoscope_socket_clients')).toBe(0)
  }, 180_000)

  it('counts refused requests by reason', async () => {
    await fetch(`${url}/api/nothing`)
    await fetch(`${url}/api/lab/reset`, { method: 'POST', headers: { origin: 'http://evil.example' } })
    const s = await scrape()
    expect(s.value('eoscope_rejected_requests_total', { via: 'rest', reason: 'not_found' })).toBeGreaterThanOrEqual(1)
    expect(s.value('eoscope_rejected_requests_total', { via: 'rest', reason: 'forbidden' })).toBeGreaterThanOrEqual(1)
  })

  const poisonShowsAsStopped =
    'under fail, a poison record shows as stopped tasks and failed threads, and the lag keeps counting them ' +
    'until skip'
  it(poisonShowsAsStopped, async () => {
    expect(await lab.execute('setConfig', { 'default.deserialization.exception.handler': 'fail' })).toEqual({
      ok: true,
    })
    expect(await lab.execute('injectPoison', { count: 3 })).toEqual({ ok: true })
    const stopped = await until(
      'a task stopped by the poison',
      async () => {
        const s = await scrape()
        return (s.value('eoscope_stopped_tasks') ?? 0) > 0 && s
      },
      90_000,
    )
    expect(stopped.value('eoscope_failed_stream_threads')).toBeGreaterThan(0)
    // The lag is the input's end minus the committed offsets, stopped tasks included: it grows while they stand still.
    const lag0 = stopped.value('eoscope_input_lag_records')!
    expect(lag0).toBeGreaterThan(0)
    await until(
      'the lag to grow while tasks are stopped',
      async () => (await scrape()).value('eoscope_input_lag_records')! > lag0,
    )
    // Tasks move to the workers still running (which meet the record in turn), so a
    // snapshot may catch them between owners.
    await until('a task stopped at the poison record, with its lag', async () =>
      (lab.snapshot().stoppedTasks ?? []).some((t) => t.stop !== null && t.lag > 0),
    )

    expect(await lab.execute('skipPoison', {})).toEqual({ ok: true })
    const resumed = await until(
      'the stopped tasks to run again',
      async () => {
        const s = await scrape()
        return s.value('eoscope_stopped_tasks') === 0 && s.value('eoscope_failed_stream_threads') === 0 && s
      },
      90_000,
    )
    expect(resumed.value('eoscope_workers', { state: 'stopped' }) ?? 0).toBe(0)
  }, 240_000)
})
