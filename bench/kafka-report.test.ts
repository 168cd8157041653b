import { describe, expect, it } from 'vitest'
import { cpuVersusKafkaStreams, overheads, rowOf, skippedRow, versusKafkaStreams } from './kafka-report.ts'
import { measureWindow, type Progress, type RunRecord } from './kafka-window.ts'

const validated = { inputRecords: 10, outputRecords: 10, lost: 0, duplicates: 0, stateMismatches: 0 }
const ok = (throughputPerSec: number, engine: number | null = null, broker: number | null = null): RunRecord => ({
  outcome: { throughputPerSec, windowMs: 1000, cpuPerRecordUs: { engine, broker }, transactions: 0, validated },
  loadBefore: [1, 1, 1],
  loadAfter: [2, 1, 1],
})
const failed = (failure: string): RunRecord => ({ outcome: { failure }, loadBefore: [1, 1, 1], loadAfter: [1, 1, 1] })

describe('bench:kafka rows', () => {
  it('leaves a failed run out of the median and records its reason, never a 0', () => {
    const row = rowOf('eoscope', 'exactly_once', 100, 1000, 3, [ok(100), failed('not caught up after 180 s'), ok(300)])
    expect(row.throughputPerSec).toMatchObject({ median: 200, min: 100, max: 300, samples: [100, 300] })
    expect(row.failures).toEqual([{ run: 2, reason: 'not caught up after 180 s' }])
    expect(row.loadAverage.before).toHaveLength(3)
  })

  it('has no median when no run completed', () => {
    expect(rowOf('kafka-streams', 'at_least_once', 100, 1000, 1, [failed('exited')]).throughputPerSec).toBeNull()
  })

  it('compares eoscope with Kafka Streams per guarantee, and each engine with itself for the overhead', () => {
    const rows = [
      rowOf('eoscope', 'at_least_once', 100, 1000, 1, [ok(100)]),
      rowOf('eoscope', 'exactly_once', 100, 1000, 1, [ok(60)]),
      rowOf('eoscope', 'exactly_once_v2', 100, 1000, 1, [ok(90)]),
      rowOf('kafka-streams', 'at_least_once', 100, 1000, 1, [ok(200)]),
      rowOf('kafka-streams', 'exactly_once_v2', 100, 1000, 1, [ok(180)]),
    ]
    expect(versusKafkaStreams(rows, [100])).toEqual([
      { commitIntervalMs: 100, at_least_once: 0.5, exactly_once: 0.333, exactly_once_v2: 0.5 },
    ])
    expect(overheads(rows, [100])).toMatchObject([
      {
        commitIntervalMs: 100,
        eoscope: { exactly_once: 0.4, exactly_once_v2: 0.1 },
        kafkaStreams: { exactly_once_v2: 0.1 },
      },
    ])
    // One name per figure: no unnamed headline beside the per-guarantee overheads.
    expect(overheads(rows, [100])[0]).not.toHaveProperty('transactionOverhead')
  })

  const pairsRepetitionRuns =
    "pairs each repetition's exactly-once run with its at_least_once run for the overhead's spread, leaving out " +
    'repetitions where either failed'
  it(pairsRepetitionRuns, () => {
    const rows = [
      rowOf('eoscope', 'at_least_once', 100, 1000, 4, [ok(100), ok(200), failed('exited'), ok(100)]),
      rowOf('eoscope', 'exactly_once_v2', 100, 1000, 4, [ok(90), ok(150), ok(80), failed('not caught up')]),
      rowOf('kafka-streams', 'at_least_once', 100, 1000, 1, [ok(200)]),
    ]
    const [o] = overheads(rows, [100])
    // Repetitions 1 and 2 pair up: 1 - 90/100 and 1 - 150/200. The medians alone would say 1 - 90/100.
    expect(o!.byRepetition.eoscope.exactly_once_v2).toMatchObject({ min: 0.1, max: 0.25, samples: [0.1, 0.25] })
    expect(o!.eoscope.exactly_once_v2).toBe(0.1)
    expect(o!.byRepetition.eoscope.exactly_once).toBeNull()
    expect(o!.byRepetition.kafkaStreams.exactly_once_v2).toBeNull()
  })

  it('reports CPU per record over the runs that could tell, and eoscope against Kafka Streams on it', () => {
    const alos = rowOf('eoscope', 'at_least_once', 100, 1000, 3, [ok(100, 9, 2), ok(100, null, null), ok(100, 7, 3)])
    expect(alos.cpuPerRecordUs.engine).toMatchObject({ median: 8, min: 7, max: 9, samples: [9, 7] })
    expect(alos.cpuPerRecordUs.broker).toMatchObject({ median: 2.5, samples: [2, 3] })
    expect(rowOf('eoscope', 'at_least_once', 100, 1000, 1, [ok(100)]).cpuPerRecordUs).toEqual({
      engine: null,
      broker: null,
    })
    // The mean of two samples, without binary floating-point noise in the file or the summary.
    expect(
      rowOf('eoscope', 'at_least_once', 100, 1000, 2, [ok(100, 5.16, 1.26), ok(100, 5.15, 1.27)]).cpuPerRecordUs,
    ).toMatchObject({ engine: { median: 5.155 }, broker: { median: 1.265 } })
    const rows = [
      alos,
      rowOf('eoscope', 'exactly_once_v2', 100, 1000, 1, [ok(90, 10, 4)]),
      rowOf('kafka-streams', 'at_least_once', 100, 1000, 1, [ok(200, 4, 2)]),
      rowOf('kafka-streams', 'exactly_once_v2', 100, 1000, 1, [ok(180, 5, 2)]),
    ]
    expect(cpuVersusKafkaStreams(rows, [100])).toEqual([
      {
        commitIntervalMs: 100,
        engine: { at_least_once: 2, exactly_once: null, exactly_once_v2: 2 },
        broker: { at_least_once: 1.25, exactly_once: null, exactly_once_v2: 2 },
      },
    ])
  })

  it('gives no ratio where Kafka Streams was skipped', () => {
    const rows = [
      rowOf('eoscope', 'at_least_once', 100, 1000, 1, [ok(100)]),
      skippedRow('kafka-streams', 'at_least_once', 100, 1000, 1, 'skipped: no java/mvn'),
    ]
    expect(versusKafkaStreams(rows, [100])[0]!.at_least_once).toBeNull()
    expect(rows[1]!.skipped).toBe('skipped: no java/mvn')
  })
})

describe('the measurement window', () => {
  const progress = (over: Partial<Progress>): Progress => ({
    committedTotal: () => 0,
    caughtUp: () => false,
    groupSettled: () => true,
    failure: () => null,
    engineCpuSeconds: () => null,
    brokerCpuSeconds: () => null,
    ...over,
  })

  it('fails with the reason when the engine stops making progress', async () => {
    await expect(
      measureWindow('run', 1000, progress({ failure: () => 'Kafka Streams exited (code 1)' }), 10_000),
    ).rejects.toThrow('run: Kafka Streams exited (code 1) (committed 0 of 1000)')
  })

  it('fails at its bound when the input is not all committed', async () => {
    await expect(measureWindow('run', 1000, progress({ committedTotal: () => 500 }), 150)).rejects.toThrow(
      'not caught up after 0 s (committed 500 of 1000)',
    )
  })

  it('measures from 10% to 90% of the records', async () => {
    let c = 0
    const w = await measureWindow(
      'run',
      1000,
      progress({ committedTotal: () => (c = Math.min(1000, c + 100)), caughtUp: () => c >= 1000 }),
      10_000,
    )
    expect(w.throughputPerSec).toBeGreaterThan(0)
    expect(w.windowMs).toBeGreaterThan(0)
    expect(w.cpuPerRecordUs).toEqual({ engine: null, broker: null })
  })

  it('counts the CPU used between the 10% and 90% marks per record committed between them', async () => {
    // Each sample commits 100 records and costs the engine 0.001 s and the broker 0.0005 s of CPU:
    // 10 us and 5 us per record, whatever the wall clock did. Start-up (before 10%) and shutdown
    // (past 90%) cost the engine seconds more, which the window leaves out.
    let c = 0
    const w = await measureWindow(
      'run',
      1000,
      progress({
        committedTotal: () => (c = Math.min(1000, c + 100)),
        caughtUp: () => c >= 1000,
        engineCpuSeconds: () => (c >= 100 ? 5 : 0) + (c >= 1000 ? 7 : 0) + c * 1e-5,
        brokerCpuSeconds: () => c * 5e-6,
      }),
      10_000,
    )
    expect(w.cpuPerRecordUs).toEqual({ engine: 10, broker: 5 })
  })

  it('has no CPU figure when either end of the window could not read it (a process gone)', async () => {
    let c = 0
    let reads = 0
    const w = await measureWindow(
      'run',
      1000,
      progress({
        committedTotal: () => (c = Math.min(1000, c + 100)),
        caughtUp: () => c >= 1000,
        engineCpuSeconds: () => (++reads === 1 ? 1 : null),
      }),
      10_000,
    )
    expect(w.cpuPerRecordUs.engine).toBeNull()
  })
})
