import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  cellOf,
  CSV_COLUMNS,
  parseSweepRequest,
  toCsv,
  type ExperimentRecord,
  type RepetitionResult,
} from '../../lib/experiment-protocol.ts'
import { DEFAULT_SWEEP_SETTINGS } from './sweep-runner.ts'
import {
  DEFAULT_EXPERIMENTS_KEEP,
  defaultExperimentsDir,
  ExperimentStore,
  experimentsKeepFromEnv,
  INDEX_FILE,
} from './experiment-store.ts'

const rep = (i: number, over: Partial<RepetitionResult> = {}): RepetitionResult => ({
  repetition: i,
  seed: i,
  throughputPerSec: 1000 * i,
  throughputWindowMs: 2000,
  saturated: true,
  latencyP50Ms: 5,
  latencyP99Ms: 20,
  latencyMaxMs: 30,
  latencyRecords: 100,
  latencyWindowMs: 2000,
  killedWorker: 'worker-1',
  killDelayMs: 3,
  recoveryMs: 1000 + i,
  phases: { detection: 900, rebalance: 10, fence: 0, restore: 5, catchUp: 85 + i },
  redone: 10 * i,
  duplicates: 10 * i,
  lost: 0,
  ...over,
})

function record(id: string, startedAt: string): ExperimentRecord {
  return {
    id,
    label: null,
    status: 'done',
    error: null,
    startedAt,
    finishedAt: startedAt,
    request: { intervals: [10], guarantees: ['at_least_once'], repeat: 3, backend: 'embedded' },
    settings: DEFAULT_SWEEP_SETTINGS,
    machine: { cpus: 2, node: 'v20', clock: 'virtual' },
    progress: { done: 3, total: 3, current: null },
    cells: [
      cellOf('at_least_once', 10, [
        rep(1),
        rep(2),
        rep(3, {
          recoveryMs: null,
          phases: { detection: null, rebalance: null, fence: null, restore: null, catchUp: null },
        }),
      ]),
    ],
  }
}

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('experiment results', () => {
  it('keep median, min and max, leaving unavailable samples out', () => {
    const c = record('a', '2024-01-01T00:00:00.000Z').cells[0]!
    expect(c.throughputPerSec).toEqual({ median: 2000, min: 1000, max: 3000, low: null, high: null, n: 3 })
    expect(c.recoveryMs).toEqual({ median: 1001.5, min: 1001, max: 1002, low: null, high: null, n: 2 })
  })

  it('export as CSV, one row per cell, unavailable figures empty', () => {
    const r = record('a', '2024-01-01T00:00:00.000Z')
    r.cells.push(cellOf('exactly_once', 10, [rep(1, { throughputPerSec: null })]))
    const lines = toCsv(r.cells).trimEnd().split('\n')
    expect(lines[0]).toBe(CSV_COLUMNS.join(','))
    // Three runs: no 95% interval yet (its columns are empty).
    expect(lines[1]).toBe('at_least_once,10,3,2000,1000,3000,,,5,20,1001.5,1001,1002,,,900,10,0,5,86.5,20,20')
    expect(lines[2]!.startsWith('exactly_once,10,1,,,,,,5,20,1001,')).toBe(true)
    // Six runs: the interval's ends.
    const six = cellOf(
      'at_least_once',
      10,
      [1, 2, 3, 4, 5, 6].map((i) => rep(i)),
    )
    expect(toCsv([six]).split('\n')[1]).toMatch(/^at_least_once,10,6,\d+,1000,6000,1000,6000,/)
  })

  it('persist under the data directory and list newest first, skipping what is not a record', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'eoscope-exp-'))
    dirs.push(dir)
    const store = new ExperimentStore(dir)
    expect(await store.list()).toEqual([])
    await store.save(record('older', '2024-01-01T00:00:00.000Z'))
    await store.save(record('newer', '2024-02-01T00:00:00.000Z'))
    writeFileSync(path.join(dir, 'junk.json'), '{not json')
    expect((await store.list()).map((s) => s.id)).toEqual(['newer', 'older'])
    expect((await store.load('older'))!.cells[0]!.throughputPerSec.median).toBe(2000)
    expect(await store.load('missing')).toBeNull()
    expect(await store.load('../etc/passwd')).toBeNull()
  })

  it('keep only the last N, listing them from the index without reading the records', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'eoscope-exp-'))
    dirs.push(dir)
    const store = new ExperimentStore(dir, 5)
    const day = (i: number) => new Date(Date.UTC(2024, 0, 1 + i)).toISOString()
    // Saved out of order: the oldest are dropped by start time, not by save order.
    for (const i of [3, 0, 7, 1, 5, 2, 6, 4]) await store.save(record(`exp-${i}`, day(i)))
    const newest = ['exp-7', 'exp-6', 'exp-5', 'exp-4', 'exp-3']
    expect((await store.list()).map((s) => s.id)).toEqual(newest)
    expect(readdirSync(dir).sort()).toEqual([INDEX_FILE, ...newest.map((id) => `${id}.json`)].sort())
    expect(await store.load('exp-0')).toBeNull()
    // A record file the list would choke on if it read it: the index answers.
    writeFileSync(path.join(dir, 'exp-7.json'), '{not json')
    expect((await store.list()).map((s) => s.id)).toEqual(newest)
    // Saving again the same experiment (progress) updates it in place.
    await store.save({ ...record('exp-6', day(6)), status: 'cancelled' })
    expect((await store.list()).find((s) => s.id === 'exp-6')).toMatchObject({ status: 'cancelled' })
    expect((await store.list()).map((s) => s.id)).toEqual(newest)
  })

  it('rebuild a missing or unreadable index from the records, once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'eoscope-exp-'))
    dirs.push(dir)
    const older = new ExperimentStore(dir, 50)
    await older.save(record('a', '2024-01-01T00:00:00.000Z'))
    await older.save(record('b', '2024-01-02T00:00:00.000Z'))
    rmSync(path.join(dir, INDEX_FILE))
    const store = new ExperimentStore(dir, 50)
    expect((await store.list()).map((s) => s.id)).toEqual(['b', 'a'])
    expect(readdirSync(dir)).toContain(INDEX_FILE)
    writeFileSync(path.join(dir, INDEX_FILE), '[oops')
    expect((await store.list()).map((s) => s.id)).toEqual(['b', 'a'])
  })

  it('read EOSCOPE_EXPERIMENTS_KEEP (default 50) and refuse a bad value', () => {
    expect(experimentsKeepFromEnv({})).toBe(DEFAULT_EXPERIMENTS_KEEP)
    expect(DEFAULT_EXPERIMENTS_KEEP).toBe(50)
    expect(experimentsKeepFromEnv({ EOSCOPE_EXPERIMENTS_KEEP: '7' })).toBe(7)
    for (const bad of ['0', '-1', '1.5', 'ten', '10001'])
      expect(() => experimentsKeepFromEnv({ EOSCOPE_EXPERIMENTS_KEEP: bad })).toThrow(/EOSCOPE_EXPERIMENTS_KEEP/)
  })

  it('live under EOSCOPE_DATA_DIR/experiments, or ./data/experiments', () => {
    expect(defaultExperimentsDir({ EOSCOPE_DATA_DIR: '/srv/eoscope' })).toBe('/srv/eoscope/experiments')
    expect(defaultExperimentsDir({})).toBe(path.resolve('data', 'experiments'))
  })
})

describe('a sweep request', () => {
  it.each([
    [{ intervals: [], guarantees: ['exactly_once'], repeat: 1, backend: 'embedded' }, 'intervals'],
    [{ intervals: [10, 10], guarantees: ['exactly_once'], repeat: 1, backend: 'embedded' }, 'must not repeat'],
    [{ intervals: [0], guarantees: ['exactly_once'], repeat: 1, backend: 'embedded' }, 'intervals.0'],
    [{ intervals: [10], guarantees: ['exactly_twice'], repeat: 1, backend: 'embedded' }, 'guarantees.0'],
    [{ intervals: [10], guarantees: ['exactly_once'], repeat: 0, backend: 'embedded' }, 'repeat'],
    [{ intervals: [10], guarantees: ['exactly_once'], repeat: 1, backend: 'pulsar' }, 'backend'],
    [{ intervals: [10], guarantees: ['exactly_once'], repeat: 1, backend: 'embedded', extra: 1 }, 'extra'],
  ])('is refused when malformed: %j', (body, says) => {
    const r = parseSweepRequest(body)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error).toContain(says)
  })

  it('comes back with its intervals sorted', () => {
    const r = parseSweepRequest({
      intervals: [1000, 10, 100],
      guarantees: ['at_least_once'],
      repeat: 2,
      backend: 'embedded',
    })
    expect(r.ok && r.request.intervals).toEqual([10, 100, 1000])
  })
})
