import { describe, expect, it } from 'vitest'
import { MockTime } from '../log/time.ts'
import { defaultRunTimeoutMs, runHeadless, type RunOptions } from './headless-run.ts'
import type { LabEvent, LabRuntime } from '../runtime/lab-runtime.ts'
import { countTransactions } from '../runtime/log-transactions.ts'
import { ProgressWatchdog, stallLimitMs, WORKER_ERRORS_KEPT } from './progress-watchdog.ts'

const RUN: RunOptions = {
  guarantee: 'exactly_once',
  workers: 3,
  partitions: 6,
  records: 2_000,
  rate: 200,
  seed: 3,
  killEveryMs: null,
  killAtStep: null,
  restartAfterMs: 500,
  dropAcks: 0,
  idempotence: true,
  latency: 'off',
  keys: 20,
}

/** Pauses every worker once the group has committed something: nothing commits after that. */
function pauseAllAfterFirstCommit(lab: LabRuntime): void {
  let paused = false
  lab.onEvent((e) => {
    if (paused || 'source' in e || e.type !== 'offsets-committed') return
    paused = true
    queueMicrotask(() => {
      for (const slot of lab.liveSlots()) if (slot.worker) lab.pause(slot.worker.id)
    })
  })
}

describe('the progress watchdog of a headless run', () => {
  it('derives its bound from session.timeout.ms: max(60 s, 12 × session.timeout.ms)', () => {
    expect(stallLimitMs({ 'session.timeout.ms': 1_000 })).toBe(60_000)
    expect(stallLimitMs({ 'session.timeout.ms': 10_000 })).toBe(120_000)
    expect(stallLimitMs({ 'session.timeout.ms': 45_000 })).toBe(540_000)
    // and the run's deadline leaves room for its kills' detections
    expect(defaultRunTimeoutMs({ 'session.timeout.ms': 1_000 })).toBe(300_000)
    expect(defaultRunTimeoutMs({ 'session.timeout.ms': 10_000 })).toBe(600_000)
  })

  it('stops a run whose workers are all paused, says why, and leaves the correctness figures null', async () => {
    const time = new MockTime()
    const started = time.now()
    const result = await time.runUntilSettled(runHeadless(RUN, time, pauseAllAfterFirstCommit), 200_000)
    expect(result.completed).toBe(false)
    expect(result.stalled).toBeDefined()
    const stall = result.stalled!
    expect(stall.limitMs).toBe(60_000)
    expect(stall.noProgressMs).toBeGreaterThanOrEqual(60_000)
    expect(stall.committed).toBeLessThan(stall.inputEnd)
    // The paused members' sessions expired: the group removed them.
    expect(stall.seen.membersRemoved).toBeGreaterThanOrEqual(1)
    expect(stall.reason).toMatch(
      /^no committed progress for \d+ s with \d+ of \d+ input records committed; meanwhile \d+ members removed/,
    )
    // Well before the 300 s deadline.
    expect(result.durationMs).toBeLessThan(120_000)
    expect(time.now() - started).toBeLessThan(200_000)
    expect({
      duplicates: result.duplicates,
      lost: result.lost,
      abortedReads: result.abortedReads,
      stateMismatches: result.stateMismatches,
      openTransactions: result.openTransactions,
    }).toEqual({
      duplicates: null,
      lost: null,
      abortedReads: null,
      stateMismatches: null,
      openTransactions: null,
    })
    expect(result.unavailableFigures?.map((u) => u.figure)).toContain('lost')
    expect(result.unavailableFigures?.every((u) => u.reason.startsWith('the run stalled: no committed progress'))).toBe(
      true,
    )
  })

  const leavesProgressingRunAlone =
    'leaves a run that makes progress alone, and its log-held transactions match what the workers reported'
  it(leavesProgressingRunAlone, async () => {
    const time = new MockTime()
    const result = await time.runUntilSettled(runHeadless({ ...RUN, records: 600 }, time), 200_000)
    expect(result.completed).toBe(true)
    expect(result.stalled).toBeUndefined()
    expect(result.lost).toBe(0)
    expect(result.transactions.committed).toBeGreaterThan(0)
    const { countedBy, ...transactions } = result.transactions
    expect(countedBy).toBe('producer id and epoch')
    expect(transactions).toEqual(result.transactionsReported)
    // One marker per partition a transaction touched: at least as many markers as transactions.
    expect(result.transactionMarkers.commit).toBeGreaterThanOrEqual(result.transactions.committed)
    expect(result.transactionMarkers.countedBy).toBe('marker per partition')
    expect(result.definitions.transactions).toContain('ABORT markers')
  })
})

describe('transactions counted from the markers the log holds', () => {
  const m = (producerId: number, epoch: number, control: 'COMMIT' | 'ABORT', partition: string, timestamp: number) => ({
    producerId,
    epoch,
    control,
    partition,
    timestamp,
  })

  it('counts one transaction per marker round of a producer, across its partitions', () => {
    const counts = countTransactions([
      // producer 1: two commits over output-0 and changelog-0, then the coordinator's abort (epoch bumped) on both
      m(1, 0, 'COMMIT', 'out-0', 100),
      m(1, 0, 'COMMIT', 'log-0', 100),
      m(1, 0, 'COMMIT', 'out-0', 210),
      m(1, 0, 'COMMIT', 'log-0', 211),
      m(1, 1, 'ABORT', 'out-0', 900),
      m(1, 1, 'ABORT', 'log-0', 901),
      // producer 2: two transactions in the same millisecond are still two (a partition is marked once per transaction)
      m(2, 0, 'COMMIT', 'out-1', 50),
      m(2, 0, 'COMMIT', 'out-1', 50),
    ])
    expect(counts).toEqual({ committed: 4, aborted: 1 })
  })
})

describe('what a stall says of failed workers', () => {
  /** Just what the watchdog reads of a runtime: the clock, the committed and produced totals, the events. */
  function stalledRuntime(time: MockTime) {
    const listeners: ((e: LabEvent) => void)[] = []
    const lab = {
      time,
      committedTotal: () => 10,
      inputEndOffsets: () => [50, 50],
      onEvent: (l: (e: LabEvent) => void) => {
        listeners.push(l)
        return () => undefined
      },
    } as unknown as LabRuntime
    return {
      lab,
      emit: (e: LabEvent) => {
        for (const l of listeners) l(e)
      },
    }
  }
  const status = (workerId: string, state: string, error: string | null): LabEvent => ({
    type: 'worker-status',
    workerId,
    slotId: 's',
    origin: 'own',
    pid: null,
    host: null,
    atMs: 0,
    status: { state, memberId: null, tasks: [], producers: [], error },
  })

  const countsFailedWorkersOnce =
    'counts each failed worker once, whether its engine or its process said it, and keeps their latest distinct ' +
    'errors'
  it(countsFailedWorkersOnce, async () => {
    const time = new MockTime()
    const { lab, emit } = stalledRuntime(time)
    const dog = new ProgressWatchdog(lab, 60_000)
    emit({
      type: 'worker-failed',
      workerId: 'w1',
      error: 'The producer attempted to use a producer id which is not currently assigned',
      atMs: 0,
    })
    // The same worker's process then exits with the error in its last status: still one failure.
    emit(status('w1', 'stopped', 'The producer attempted to use a producer id which is not currently assigned'))
    emit(status('w2', 'stopped', 'Connection error: ECONNREFUSED'))
    // A status without an error, and a running one, are no failures.
    emit(status('w3', 'stopped', null))
    emit(status('w4', 'running', null))
    await time.runFor(59_000)
    expect(dog.check()).toBeNull()
    await time.runFor(2_000)
    const stall = dog.check()!
    expect(stall.seen.workerFailures).toBe(2)
    expect(stall.seen.workerErrors).toEqual([
      'w1: The producer attempted to use a producer id which is not currently assigned',
      'w2: Connection error: ECONNREFUSED',
    ])
    expect(stall.reason).toContain('2 workers failed; the failed workers said: w1: The producer attempted')
    expect(stall.reason).toContain('| w2: Connection error: ECONNREFUSED')
  })

  it(`keeps at most ${WORKER_ERRORS_KEPT} errors, the latest, each cut to 200 characters`, async () => {
    const time = new MockTime()
    const { lab, emit } = stalledRuntime(time)
    const dog = new ProgressWatchdog(lab, 1_000)
    for (let i = 1; i <= 8; i++)
      emit({ type: 'worker-failed', workerId: `w${i}`, error: `error ${i} ${'x'.repeat(300)}`, atMs: 0 })
    await time.runFor(1_000)
    const stall = dog.check()!
    expect(stall.seen.workerFailures).toBe(8)
    expect(stall.seen.workerErrors.map((e) => e.slice(0, 11))).toEqual([
      'w4: error 4',
      'w5: error 5',
      'w6: error 6',
      'w7: error 7',
      'w8: error 8',
    ])
    expect(stall.seen.workerErrors.every((e) => e.length === 200)).toBe(true)
  })

  it('forgets what it saw once the group makes progress again', async () => {
    const time = new MockTime()
    let committed = 10
    const listeners: ((e: LabEvent) => void)[] = []
    const lab = {
      time,
      committedTotal: () => committed,
      inputEndOffsets: () => [100],
      onEvent: (l: (e: LabEvent) => void) => {
        listeners.push(l)
        return () => undefined
      },
    } as unknown as LabRuntime
    const dog = new ProgressWatchdog(lab, 1_000)
    for (const l of listeners) l({ type: 'worker-failed', workerId: 'w1', error: 'boom', atMs: 0 })
    committed = 20
    expect(dog.check()).toBeNull()
    await time.runFor(1_000)
    expect(dog.check()!.seen).toMatchObject({ workerFailures: 0, workerErrors: [] })
  })
})
