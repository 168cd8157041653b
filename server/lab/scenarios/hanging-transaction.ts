// A producer dies mid-transaction and nobody takes over its transactional.id: the last stable
// offset stops, read_committed readers stall, until transaction.timeout.ms aborts it.

import { abortedRuns, linkOf } from './evidence-links.ts'
import { collect, finishAndValidate, pickWorkerWithTasks, type Scenario, waitUntil, embeddedLab } from './scenario.ts'

export const hangingTransactionScenario: Scenario = {
  name: 'hanging-transaction',
  title: 'A hanging transaction and transaction.timeout.ms',
  summary: 'Under exactly_once_v2 the transactional.id belongs to the worker. If it dies and is never restarted, nobody fences its open transaction: the last stable offset of every partition it wrote stops, and read_committed consumers stall until the coordinator aborts it at transaction.timeout.ms.',
  notOnKafka: "it reads the last stable offset and the coordinator's timeout abort inside the embedded broker; on Kafka see a hanging transaction with eoscope observe and the Transactions view",
  async run(ctx) {
    const { time } = ctx
    const timeoutMs = 3_000
    const lab = embeddedLab(await ctx.host.start({ guarantee: 'exactly_once_v2', commitIntervalMs: 1_000, transactionTimeoutMs: timeoutMs, ratePerSec: 1_000, records: 8_000, restartAfterMs: null }))
    const events = collect(lab)
    await time.sleep(1_500)
    const victim = pickWorkerWithTasks(lab)
    const tid = `${lab.groupId}-${lab.slotOf(victim)!.slotId}`
    lab.kill(victim, 4)
    await waitUntil(time, () => lab.kills > 0, 5_000, 'the kill')
    const t0 = time.now()
    const partitions = lab.tracker.recoveries[0]!.partitions.map((p) => p.partition)
    const lso = () => partitions.map((p) => lab.cluster.partitionLog({ topic: lab.topics.output, partition: p }).lastStableOffset)
    const stuck = lso()
    ctx.say(`${victim} died after step 4 holding transaction ${tid}; output partitions ${partitions.join(', ')} stop at last stable offsets ${stuck.join(', ')}`)
    let hwGrew = false
    await waitUntil(
      time,
      () => {
        const hw = partitions.map((p) => lab.cluster.partitionLog({ topic: lab.topics.output, partition: p }).highWatermark)
        if (hw.some((h, i) => h > stuck[i]! + 10)) hwGrew = true
        return lso().some((x, i) => x > stuck[i]!)
      },
      timeoutMs * 3,
      'the last stable offset to move',
    )
    const releasedAfter = time.now() - t0
    const abort = events.find((e) => 'source' in e && e.type === 'txn-ended' && e.transactionalId === tid && e.outcome === 'aborted')
    ctx.say(`${ctx.figure('stalledMs', Math.round(releasedAfter))} ms after the crash the coordinator aborted ${tid}, open since its first write (transaction.timeout.ms=${ctx.figure('transactionTimeoutMs', timeoutMs)}); the last stable offset moves again`)
    const report = await finishAndValidate(lab)
    const runs = await abortedRuns(lab, lab.topics.output, partitions)
    for (const [i, p] of partitions.entries()) {
      const run = runs.find((r) => r.partition === p && r.from <= stuck[i]! && stuck[i]! < r.to) ?? runs.find((r) => r.partition === p && r.from >= stuck[i]!)
      if (run) ctx.link(linkOf(`hanging transaction ${tid}: output-${p} [${run.from}, ${run.to}), ${run.records} records held back from read_committed until the timeout abort`, 'output', run, t0))
    }
    Object.assign(ctx.evidence, {
      transactionalId: tid,
      partitions,
      lastStableOffsetsWhileStuck: stuck,
      highWatermarkGrewWhileStuck: hwGrew,
      stalledMs: Math.round(releasedAfter),
      transactionTimeoutMs: timeoutMs,
      abortReason: abort && 'reason' in abort ? abort.reason : null,
      duplicates: report.duplicates,
      lost: report.lost,
      openTransactions: report.openTransactions,
    })
    ctx.expect('read_committed stalled while the high watermark grew past the stuck last stable offset', hwGrew)
    const openFor = abort && abort.type === 'txn-ended' ? abort.endMs - abort.startMs : 0
    ctx.evidence.transactionOpenMs = Math.round(openFor)
    ctx.expect('the stall ended by a timeout abort, once the transaction had been open for transaction.timeout.ms', abort !== undefined && 'reason' in abort && abort.reason === 'timeout' && openFor >= timeoutMs)
    ctx.expect('0 duplicates and 0 lost afterwards', report.duplicates === 0 && report.lost === 0)
    return `Nobody took over ${tid}, so its open transaction pinned the last stable offset for ${Math.round(releasedAfter)} ms while later output piled up invisible; transaction.timeout.ms (${timeoutMs} ms) ended it with an abort.`
  },
}
