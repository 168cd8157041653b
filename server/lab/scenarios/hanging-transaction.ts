// A producer dies mid-transaction and nobody takes over its transactional.id: the last stable
// offset stops, read_committed readers stall, until transaction.timeout.ms aborts it.
//
// Read the same way on both backends: the last stable offset and high watermark from the log,
// when the transaction began from its coordinator (DescribeTransactions, KIP-664), its end from
// the ABORT marker its producer got, and "nobody took over" from the workers' own InitProducerId
// events. On Kafka the dead worker's partitions move only after its session expires (10 s), so the
// transaction timeout there is twice that: the new owner's output piles up behind the stuck LSO.

import type { LogInspector, PartitionOffsets, TopicPartition } from '../../log/types.ts'
import { abortedRuns, linkOf } from './evidence-links.ts'
import {
  aWorkerWithTasks,
  collect,
  finishAndValidate,
  type Scenario,
  pollUntil,
  stallBoundMs,
  waitWhileProgressing,
} from './scenario.ts'

export const hangingTransactionScenario: Scenario = {
  name: 'hanging-transaction',
  title: 'A hanging transaction and transaction.timeout.ms',
  summary:
    'Under exactly_once_v2 the transactional.id belongs to the worker. If it dies and is never restarted, ' +
    'nobody fences its open transaction: the last stable offset of every partition it wrote stops, and ' +
    'read_committed consumers stall until the coordinator aborts it at transaction.timeout.ms.',
  async run(ctx) {
    const { time } = ctx
    const kafka = ctx.host.backend === 'kafka'
    const timeoutMs = kafka ? 20_000 : 3_000
    const lab = await ctx.host.start({
      guarantee: 'exactly_once_v2',
      commitIntervalMs: 1_000,
      transactionTimeoutMs: timeoutMs,
      ratePerSec: 1_000,
      records: kafka ? 40_000 : 8_000,
      restartAfterMs: null,
    })
    const events = collect(lab)
    const stallMs = stallBoundMs(lab)
    await time.sleep(1_500)
    const victim = await aWorkerWithTasks(lab)
    const tid = `${lab.groupId}-${lab.slotOf(victim)!.slotId}`
    await lab.killConfirmed(victim, 4)
    await waitWhileProgressing(
      time,
      () => lab.kills > 0,
      () => lab.committedTotal(),
      { stallMs, maxMs: 10 * stallMs, what: 'the kill' },
    )
    const t0 = time.now()
    const inspector = lab.connection.inspector()
    const owned = lab.tracker.recoveries[0]!.partitions.map((p) => p.partition)
    const output = (partition: number): TopicPartition => ({ topic: lab.topics.output, partition })
    // When the hanging transaction began, by its coordinator's clock.
    const described = await inspector.transactions?.(owned.map(output), { transactionalIdPrefix: tid })
    const coordinator = described?.coordinators.find((c) => c.transactionalId === tid) ?? null
    // The partitions the hanging transaction holds, and where it begins on each (its leaders' open
    // transaction of that producer): the LSO stops there. The dead worker's other partitions, and
    // the LSO held lower for a while by a live worker's transaction open across the rebalance, are
    // not what the scenario waits out. Where no leader tells (no DescribeProducers), every partition
    // it owned and its LSO at the crash.
    const held = owned.flatMap((p) => {
      const first = described?.producers.find(
        (x) => x.partition === p && x.producerId === coordinator?.producerId && x.currentTxnStartOffset >= 0,
      )?.currentTxnStartOffset
      return first === undefined ? [] : [{ partition: p, first }]
    })
    const partitions = held.length > 0 ? held.map((h) => h.partition) : owned
    const offsets = () => Promise.all(partitions.map((p) => inspector.offsets(output(p))))
    const stuck = held.length > 0 ? held.map((h) => h.first) : (await offsets()).map((o) => o.lastStableOffset)
    ctx.say(
      `${victim} died after step 4 holding transaction ${tid}; output partitions ${partitions.join(', ')} stop ` +
        `at last stable offsets ${stuck.join(', ')}, where it begins`,
    )
    let hwGrew = false
    const moved = (now: PartitionOffsets[]) => {
      if (now.some((o, i) => o.highWatermark > stuck[i]! + 10)) hwGrew = true
      return now.some((o, i) => o.lastStableOffset > stuck[i]!)
    }
    await pollUntil(time, offsets, moved, {
      everyMs: kafka ? 100 : 10,
      boundMs: Math.max(3 * timeoutMs, stallMs),
      what: 'the last stable offset to move',
    })
    const releasedAfter = time.now() - t0
    // The hanging transaction's first record is where the LSO stood; its producer's ABORT marker ends it.
    const ended = await abortOf(inspector, partitions.map(output), stuck)
    const openForMs =
      ended !== null && coordinator !== null && coordinator.startTimeMs >= 0
        ? Math.round(ended.markerTimestamp - coordinator.startTimeMs)
        : null
    // InitProducerId for its transactional.id by any worker but the dead one (which
    // re-initialises its own after an abort).
    const inits = events.filter(
      (e) => e.type === 'producer-init' && e.transactionalId === tid && e.workerId !== victim,
    ).length
    ctx.say(
      `${ctx.figure('stalledMs', Math.round(releasedAfter))} ms after the crash the coordinator aborted ${tid}, ` +
        `open for ${ctx.figure('transactionOpenMs', openForMs)} ms since it began ` +
        `(transaction.timeout.ms=${ctx.figure('transactionTimeoutMs', timeoutMs)}); the last stable offset moves again`,
    )
    const report = await finishAndValidate(lab)
    const runs = await abortedRuns(lab, lab.topics.output, partitions)
    for (const [i, p] of partitions.entries()) {
      const run =
        runs.find((r) => r.partition === p && r.from <= stuck[i]! && stuck[i]! < r.to) ??
        runs.find((r) => r.partition === p && r.from >= stuck[i]!)
      if (run)
        ctx.link(
          linkOf(
            `hanging transaction ${tid}: output-${p} [${run.from}, ${run.to}), ${run.records} records held ` +
              `back from read_committed until the timeout abort`,
            'output',
            run,
            t0,
          ),
        )
    }
    // The embedded broker also says why it aborted; a Kafka broker tells no client.
    const brokerAbort = events.find(
      (e) => 'source' in e && e.type === 'txn-ended' && e.transactionalId === tid && e.outcome === 'aborted',
    )
    const brokerReason = brokerAbort && 'reason' in brokerAbort ? brokerAbort.reason : null
    Object.assign(ctx.evidence, {
      transactionalId: tid,
      partitions,
      lastStableOffsetsWhileStuck: stuck,
      highWatermarkGrewWhileStuck: hwGrew,
      stalledMs: Math.round(releasedAfter),
      transactionTimeoutMs: timeoutMs,
      transactionStartMs: coordinator?.startTimeMs ?? null,
      abortMarker: ended,
      transactionOpenMs: openForMs,
      initProducerIdsByOthers: inits,
      abortReason: brokerReason,
      duplicates: report.duplicates,
      lost: report.lost,
      openTransactions: report.openTransactions,
    })
    ctx.expect('read_committed stalled while the high watermark grew past the stuck last stable offset', hwGrew)
    ctx.expect('nobody took its transactional.id over: no other worker sent InitProducerId for it', inits === 0)
    ctx.expect(
      'the stall ended by an ABORT marker for the hanging producer, once its transaction had been open for ' +
        'transaction.timeout.ms',
      openForMs !== null && openForMs >= timeoutMs && (kafka || brokerReason === 'timeout'),
    )
    ctx.expect('0 duplicates and 0 lost afterwards', report.duplicates === 0 && report.lost === 0)
    return (
      `Nobody took over ${tid}, so its open transaction pinned the last stable offset for ` +
      `${Math.round(releasedAfter)} ms while later output piled up invisible; transaction.timeout.ms (${timeoutMs} ` +
      `ms) ended it with an abort.`
    )
  },
}

/**
 * The hanging producer's ABORT marker on the first stuck partition that has one: who held the LSO,
 * and when it was aborted (its producer's first ABORT after that record: one transaction is open per producer).
 */
async function abortOf(inspector: LogInspector, tps: TopicPartition[], stuck: number[]) {
  for (const [i, tp] of tps.entries()) {
    const { highWatermark } = await inspector.offsets(tp)
    const raw = await inspector.readRaw(tp, stuck[i]!, highWatermark, Number.MAX_SAFE_INTEGER)
    const first = raw.find((r) => r.control === null)
    if (!first || first.offset !== stuck[i]) continue
    const marker = raw.find((r) => r.control === 'ABORT' && r.producerId === first.producerId)
    if (marker)
      return {
        partition: tp.partition,
        producerId: first.producerId,
        epoch: first.producerEpoch,
        firstOffset: first.offset,
        markerOffset: marker.offset,
        markerTimestamp: marker.timestamp,
      }
  }
  return null
}
