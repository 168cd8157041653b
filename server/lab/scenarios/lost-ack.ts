// The broker appends a batch but its ack is lost; the producer retries. Without idempotence the
// write is doubled; with it the broker recognises the retry by its producer id, epoch and sequence.
// The run with idempotence goes first, so the lab the scenario ends on holds the doubled write.

import { orNone } from '../../../lib/kafka-none.ts'
import { duplicateRuns, linkOf } from './evidence-links.ts'
import {
  aWorkerProcessing,
  aWorkerWithTasks,
  finishAndValidate,
  collect,
  outputProvenance,
  type Provenance,
  type Scenario,
  type ScenarioContext,
} from './scenario.ts'

/** One run with enable.idempotence 'on' or 'off'. */
async function lostAck(ctx: ScenarioContext, enableIdempotence: 'on' | 'off') {
  const idempotence = enableIdempotence === 'on'
  // The load starts once the group has formed: on Kafka a partition that moves while the group
  // forms has records redone by its next owner (kafkajs gives no hook before it moves), duplicates
  // that no lost ack caused.
  const lab = await ctx.host.start({
    guarantee: 'at_least_once',
    idempotence,
    commitIntervalMs: 500,
    ratePerSec: 0,
    records: 3_000,
  })
  const events = collect(lab)
  await aWorkerWithTasks(lab)
  lab.generator.setRate(1_000)
  await ctx.time.sleep(500)
  // The next produce to the output topic loses its ack: in the embedded broker, or on Kafka in the
  // ack-drop proxy between the workers and the brokers. Armed once a worker processes.
  await aWorkerProcessing(lab)
  lab.dropAcks(1)
  ctx.say(`enable.idempotence=${idempotence}: the next produce ack is lost after the broker appended the batch`)
  const report = await finishAndValidate(lab)
  const ack = events.find((e) => e.type === 'ack-dropped')
  const dropped = ack?.type === 'ack-dropped' ? ack : null
  // The embedded broker says when it drops a retry by its sequence number; a Kafka broker tells no
  // client, so the claim is read from the log on both: how many copies of the dropped batch's records it holds.
  const dedup = events.filter((e) => 'source' in e && e.type === 'retry-deduplicated')
  const provenance = [...(await outputProvenance(lab)).values()]
  const retried = (dropped?.batches ?? []).filter((b) => b.topic === lab.topics.output)
  const inBatch = (p: Provenance) =>
    p.outputs.some((o) =>
      retried.some((b) => b.partition === o.partition && o.offset >= b.baseOffset && o.offset < b.baseOffset + b.count),
    )
  const batchRecords = provenance.filter(inBatch)
  return { lab, report, dropped, dedup, batchRecords }
}

export const lostAckScenario: Scenario = {
  name: 'lost-ack',
  title: 'A lost ack and the retry',
  summary:
    'Step 4 fails after the broker appended: the producer retries the same batch. Without idempotence it is ' +
    'written twice; with enable.idempotence the broker drops the retry by its sequence number.',
  async run(ctx) {
    const on = await lostAck(ctx, 'on')
    const e = on.dropped
    const dedup = on.dedup.map((x) =>
      x.type === 'retry-deduplicated'
        ? {
            producerId: x.producerId,
            epoch: x.epoch,
            partition: `${x.topic}-${x.partition}`,
            baseSequence: x.baseSequence,
            count: x.count,
            originalOffset: x.baseOffset,
          }
        : null,
    )
    const deduplicated = ctx.figure('deduplicatedRetries', dedup.length)
    const told =
      ctx.host.backend === 'kafka'
        ? 'a Kafka broker tells no client when it drops a retry, so the log is read for copies instead'
        : `the broker acknowledged ${deduplicated} retried batch(es) without appending them`
    const sequences = e?.batches
      .map((b) => `${b.topic}-${b.partition}:${b.baseSequence}..${b.baseSequence + b.count - 1}`)
      .join(', ')
    ctx.say(
      e
        ? `idempotence on: producer id ${e.producerId}, epoch ${e.epoch}, sequences ${sequences}; ${told}`
        : 'no ack was dropped',
    )
    const off = await lostAck(ctx, 'off')
    const d = off.dropped
    ctx.say(
      d
        ? `idempotence off: producer id ${orNone(d.producerId)} (no idempotence, no id), retried batches ` +
            `${d.batches.map((b) => `${b.topic}-${b.partition}@${b.baseOffset}×${b.count}`).join(', ')}`
        : 'no ack was dropped',
    )
    // The output records written twice: both copies of every record of a retried output batch.
    const twice = off.batchRecords.filter((p) => p.copies > 1)
    for (const run of duplicateRuns(twice))
      ctx.link(
        linkOf(
          `written twice: output-${run.partition} [${run.from}, ${run.to}), the batch whose ack was lost and its retry`,
          'output',
          run,
          d?.atMs ?? ctx.time.now(),
        ),
      )
    Object.assign(ctx.evidence, {
      idempotenceOff: { droppedAck: d, duplicates: off.report.duplicates, lost: off.report.lost },
      idempotenceOn: {
        droppedAck: e,
        deduplicatedRetries: dedup,
        batchRecords: on.batchRecords.length,
        batchRecordsWrittenTwice: on.batchRecords.filter((p) => p.copies > 1).length,
        duplicates: on.report.duplicates,
        lost: on.report.lost,
      },
    })
    ctx.expect('an ack was dropped in both runs', d !== null && e !== null)
    ctx.expect('without idempotence the retry doubled the write: duplicates > 0', (off.report.duplicates ?? 0) > 0)
    ctx.expect(
      'with idempotence the broker dropped the retry by its sequence number: every record of the batch whose ' +
        'ack was lost is in the log once',
      on.batchRecords.length > 0 &&
        on.batchRecords.every((p) => p.copies === 1) &&
        (ctx.host.backend === 'kafka' || dedup.length > 0),
    )
    ctx.expect('with idempotence: 0 duplicates', on.report.duplicates === 0)
    ctx.expect('lost is 0 in both runs', off.report.lost === 0 && on.report.lost === 0)
    const [doubled, deduped] = [
      ctx.figure('duplicatesWithoutIdempotence', off.report.duplicates),
      ctx.figure('duplicatesWithIdempotence', on.report.duplicates),
    ]
    return (
      `Without idempotence the retried batch was appended again (${doubled} duplicates). With enable.idempotence ` +
      `the broker matched producer id, epoch and sequence and acknowledged the retry without appending it: ` +
      `${deduped} duplicates.`
    )
  },
}
