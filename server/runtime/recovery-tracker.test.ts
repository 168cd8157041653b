import { describe, expect, it } from 'vitest'
import type { ProcessingGuarantee } from '../../lib/streams-config.ts'
import type { RecoveryPhases } from '../../lib/lab-protocol.ts'
import { phaseDurations, phaseEnds, type Recovery, RecoveryTracker, redone } from './recovery-tracker.ts'

const T0 = 10_000
const MEMBER = 'worker-1-1'
const TXN_ID = 'eoscope-worker-1'

/**
 * A hand-made timeline after a kill at T0 of a worker that owned partitions 0 and 1:
 * partition 0 had consumed up to 50 with 40 committed (10 to redo), partition 1 had nothing
 * uncommitted. Offsets in ms after T0:
 *   +1000 member expired   +1010 p0 assigned  +1020 p1 assigned
 *   +1030 p0 fenced        +1040 p1 fenced
 *   +1050 p0 restored      +1060 p1 restored (already caught up)
 *   +1070 p0 committed 45  +1100 p0 committed 50 (t1)
 */
function timeline(
  guarantee: ProcessingGuarantee,
  options: { hadOpenTxn?: boolean; openTxnAbortedAt?: number } = {},
): { tracker: RecoveryTracker; r: Recovery } {
  const tracker = new RecoveryTracker()
  const r = tracker.onKill({
    workerId: 'worker-1',
    memberId: MEMBER,
    transactionalIds:
      guarantee === 'exactly_once_v2' ? [TXN_ID] : guarantee === 'exactly_once' ? ['eoscope-0_0', 'eoscope-0_1'] : [],
    guarantee,
    t0: T0,
    partitions: [
      { partition: 0, positionAtKill: 50, committedAtKill: 40 },
      { partition: 1, positionAtKill: 30, committedAtKill: 30 },
    ],
    hadOpenTxn: options.hadOpenTxn ?? false,
  })!
  // Noise the tracker must ignore: another member leaving, an assignment before detection.
  tracker.onAssigned([0], T0 + 500)
  tracker.onMemberGone('worker-2-2', T0 + 600)
  tracker.onMemberGone(MEMBER, T0 + 1000)
  tracker.onAssigned([0], T0 + 1010)
  tracker.onAssigned([1], T0 + 1020)
  tracker.onFenced(0, T0 + 1030)
  tracker.onFenced(1, T0 + 1040)
  if (options.openTxnAbortedAt !== undefined) tracker.onTxnAborted(TXN_ID, options.openTxnAbortedAt)
  tracker.onRestored(0, T0 + 1050)
  tracker.onRestored(1, T0 + 1060)
  tracker.onCommitted(0, 45, T0 + 1070)
  tracker.onCommitted(0, 50, T0 + 1100)
  return { tracker, r }
}

function sum(p: RecoveryPhases): number {
  return (p.detection ?? NaN) + (p.rebalance ?? NaN) + (p.fence ?? NaN) + (p.restore ?? NaN) + (p.catchUp ?? NaN)
}

describe('recovery measurement against a hand-made timeline', () => {
  it('splits exactly_once recovery into phases that add up to t1 - t0', () => {
    const { r } = timeline('exactly_once')
    expect(r.t1).toBe(T0 + 1100)
    expect(phaseEnds(r)).toEqual({
      detection: T0 + 1000,
      rebalance: T0 + 1020,
      fence: T0 + 1040,
      restore: T0 + 1060,
      catchUp: T0 + 1100,
    })
    const phases = phaseDurations(r)
    expect(phases).toEqual({ detection: 1000, rebalance: 20, fence: 20, restore: 20, catchUp: 40 })
    expect(sum(phases)).toBe(r.t1! - r.t0)
    expect(redone(r)).toBe(10)
  })

  const endsEveryPhaseByT1 =
    'ends every phase by t1: a restore stamped after the offsets were seen committed takes the catch-up to 0, ' +
    'and the phases still add up'
  it(endsEveryPhaseByT1, () => {
    // On Kafka, restore instants come from the worker processes' clocks, commits from the offsets
    // the lab reads: a sweep on Kafka measured phases summing to 14.2 ms more than its recovery time.
    const tracker = new RecoveryTracker()
    const r = tracker.onKill({
      workerId: 'worker-1',
      memberId: MEMBER,
      transactionalIds: ['eoscope-0_0'],
      guarantee: 'exactly_once',
      t0: T0,
      partitions: [{ partition: 0, positionAtKill: 50, committedAtKill: 40 }],
      hadOpenTxn: false,
    })!
    tracker.onMemberGone(MEMBER, T0 + 1000)
    tracker.onAssigned([0], T0 + 1010)
    tracker.onFenced(0, T0 + 1030)
    tracker.onRestored(0, T0 + 1114)
    tracker.onCommitted(0, 50, T0 + 1100)
    expect(r.t1).toBe(T0 + 1100)
    expect(phaseEnds(r)).toMatchObject({ restore: T0 + 1100, catchUp: T0 + 1100 })
    const phases = phaseDurations(r)
    expect(phases).toEqual({ detection: 1000, rebalance: 10, fence: 20, restore: 70, catchUp: 0 })
    expect(sum(phases)).toBe(r.t1! - r.t0)
  })

  it('gives at_least_once a zero fence phase, and still adds up', () => {
    const { r } = timeline('at_least_once')
    const phases = phaseDurations(r)
    expect(phases.fence).toBe(0)
    // Restore is measured from the end of the rebalance, so it takes in the task's setup.
    expect(phases).toEqual({ detection: 1000, rebalance: 20, fence: 0, restore: 40, catchUp: 40 })
    expect(sum(phases)).toBe(r.t1! - r.t0)
  })

  it('under exactly_once_v2 waits for the dead worker’s open transaction to be aborted', () => {
    const abortAt = T0 + 1080
    const { r } = timeline('exactly_once_v2', { hadOpenTxn: true, openTxnAbortedAt: abortAt })
    expect(r.openTxnAbortedAt).toBe(abortAt)
    const ends = phaseEnds(r)
    expect(ends.fence).toBe(abortAt)
    // The restore finished before the abort: its phase is clamped to zero, the order is kept.
    expect(ends.restore).toBe(abortAt)
    const phases = phaseDurations(r)
    expect(phases).toEqual({ detection: 1000, rebalance: 20, fence: 60, restore: 0, catchUp: 20 })
    expect(sum(phases)).toBe(r.t1! - r.t0)
  })

  it('under exactly_once_v2 leaves the fence phase open while the dead worker’s transaction is not yet aborted', () => {
    const { r } = timeline('exactly_once_v2', { hadOpenTxn: true })
    expect(phaseEnds(r)).toMatchObject({
      detection: T0 + 1000,
      rebalance: T0 + 1020,
      fence: null,
      restore: null,
      catchUp: null,
    })
    expect(phaseDurations(r)).toMatchObject({ fence: null, restore: null, catchUp: null })
  })

  it('under exactly_once_v2 without an open transaction ends the fence phase at the last fence', () => {
    const { r } = timeline('exactly_once_v2', { hadOpenTxn: false })
    expect(phaseDurations(r)).toEqual({ detection: 1000, rebalance: 20, fence: 20, restore: 20, catchUp: 40 })
  })

  it('has no t1 until every partition reached its position at kill', () => {
    const tracker = new RecoveryTracker()
    const r = tracker.onKill({
      workerId: 'w',
      memberId: MEMBER,
      transactionalIds: [],
      guarantee: 'at_least_once',
      t0: T0,
      partitions: [{ partition: 0, positionAtKill: 5, committedAtKill: null }],
      hadOpenTxn: false,
    })!
    tracker.onMemberGone(MEMBER, T0 + 100)
    tracker.onAssigned([0], T0 + 110)
    tracker.onFenced(0, T0 + 120)
    tracker.onCommitted(0, 5, T0 + 125) // before the restore: not counted
    tracker.onRestored(0, T0 + 130)
    expect(r.t1).toBeNull()
    expect(phaseDurations(r).catchUp).toBeNull()
    expect(redone(r)).toBe(5)
    tracker.onCommitted(0, 5, T0 + 200)
    expect(r.t1).toBe(T0 + 200)
    expect(sum(phaseDurations(r))).toBe(200)
  })

  it('records no recovery for a worker that owned no partitions', () => {
    const tracker = new RecoveryTracker()
    expect(
      tracker.onKill({
        workerId: 'w',
        memberId: MEMBER,
        transactionalIds: [],
        guarantee: 'exactly_once',
        t0: T0,
        partitions: [],
        hadOpenTxn: false,
      }),
    ).toBeNull()
    expect(tracker.recoveries).toEqual([])
  })
})
