// DescribeTransactions on Kafka keeps a transactional id's last start time after its transaction
// completed; on the log's port a start time means "open since", so a completed one has none.

import { describe, expect, it } from 'vitest'
import { coordinatorTransactionOf } from './kafka-transaction-admin.ts'

const described = (state: string, startTimeMs: number) => ({
  errorCode: 0,
  transactionalId: 'app-0_1',
  state,
  timeoutMs: 10_000,
  startTimeMs,
  producerId: 7,
  epoch: 3,
  partitions: state === 'Ongoing' ? [{ topic: 'out', partition: 1 }] : [],
})

describe('a described transactional id on the log port', () => {
  it('is open since its start time while Ongoing or being ended', () => {
    for (const state of ['Ongoing', 'PrepareCommit', 'PrepareAbort', 'PrepareEpochFence'])
      expect(coordinatorTransactionOf(described(state, 1_000)).startTimeMs, state).toBe(1_000)
  })

  it('has no start time once complete, Empty or Dead, whatever the coordinator kept', () => {
    for (const state of ['CompleteCommit', 'CompleteAbort', 'Empty', 'Dead'])
      expect(coordinatorTransactionOf(described(state, 1_000)).startTimeMs, state).toBe(-1)
    expect(coordinatorTransactionOf(described('Ongoing', -1)).startTimeMs).toBe(-1)
  })

  const keepsRestAsDescribed =
    'keeps the rest as described, without the error code, with no last-update time (DescribeTransactions has ' + 'none)'
  it(keepsRestAsDescribed, () => {
    expect(coordinatorTransactionOf(described('Ongoing', 5))).toEqual({
      transactionalId: 'app-0_1',
      state: 'Ongoing',
      timeoutMs: 10_000,
      startTimeMs: 5,
      producerId: 7,
      epoch: 3,
      partitions: [{ topic: 'out', partition: 1 }],
      lastUpdateMs: null,
    })
  })
})
