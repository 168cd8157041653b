// The run's two transaction counts, from one read of the log: transactions, each once across
// its partitions (by producer id and epoch), and markers, one per partition a transaction touched.

import { describe, expect, it } from 'vitest'
import { ClientFaults, EmbeddedConnection } from '../log/embedded/embedded-connection.ts'
import { EmbeddedCluster } from '../log/embedded/embedded-cluster.ts'
import { latencyModel } from '../log/embedded/latency-model.ts'
import { ProcessHandle } from '../log/embedded/process-handle.ts'
import { MockTime } from '../log/time.ts'
import { transactionsAndMarkersInLog } from './log-transactions.ts'

describe('transactionsAndMarkersInLog', () => {
  it('one transaction over three partitions: 1 committed transaction, 3 COMMIT markers', async () => {
    const time = new MockTime()
    const cluster = new EmbeddedCluster(time, { latency: latencyModel('off') })
    cluster.createTopic({ topic: 'out', partitions: 4 })
    cluster.createTopic({ topic: 'changelog', partitions: 4 })
    const conn = new EmbeddedConnection(cluster, new ProcessHandle('t'), new ClientFaults())
    const p = conn.producer({
      clientId: 'p',
      idempotent: true,
      transactionalId: 'app-0_0',
      transactionTimeoutMs: 60_000,
    })
    const work = (async () => {
      await p.initTransactions()
      p.beginTransaction()
      await p.send([0, 1, 2].map((partition) => ({ topic: 'out', partition, key: 'k', value: '1' })))
      await p.commitTransaction()
      p.beginTransaction()
      await p.send([{ topic: 'changelog', partition: 3, key: 'k', value: '2' }])
      await p.abortTransaction()
    })()
    await time.runUntilSettled(work)
    const counts = await time.runUntilSettled(transactionsAndMarkersInLog(conn.inspector(), ['out', 'changelog']))
    expect(counts.transactions).toEqual({ committed: 1, aborted: 1 })
    expect(counts.markers).toEqual({
      commit: 3,
      abort: 1,
      byTopic: {
        out: { commit: [1, 1, 1, 0], abort: [0, 0, 0, 0] },
        changelog: { commit: [0, 0, 0, 0], abort: [0, 0, 0, 1] },
      },
    })
  })
})
