// The broker appends a batch but its ack is lost; the producer retries. Without idempotence the
// write is doubled; with it the broker recognises the retry by its producer id, epoch and sequence.

import { finishAndValidate, collect, type Scenario, type ScenarioContext } from './scenario.ts'

/** One run with enable.idempotence 'on' or 'off'. */
async function lostAck(ctx: ScenarioContext, enableIdempotence: 'on' | 'off') {
  const idempotence = enableIdempotence === 'on'
  const lab = await ctx.host.start({ guarantee: 'at_least_once', idempotence, commitIntervalMs: 500, ratePerSec: 1_000, records: 3_000 })
  const events = collect(lab)
  await ctx.time.sleep(1_000)
  lab.dropAcks(1)
  ctx.say(`enable.idempotence=${idempotence}: the next produce ack is lost after the broker appended the batch`)
  const report = await finishAndValidate(lab)
  const dropped = events.find((e) => e.type === 'ack-dropped')
  const dedup = events.filter((e) => 'source' in e && e.type === 'retry-deduplicated')
  return { report, dropped, dedup }
}

export const lostAckScenario: Scenario = {
  name: 'lost-ack',
  title: 'A lost ack and the retry',
  summary: 'Step 4 fails after the broker appended: the producer retries the same batch. Without idempotence it is written twice; with enable.idempotence the broker drops the retry by its sequence number.',
  async run(ctx) {
    const off = await lostAck(ctx, 'off')
    const d = off.dropped?.type === 'ack-dropped' ? off.dropped : null
    ctx.say(d ? `idempotence off: producer id ${d.producerId} (none: -1), retried batches ${d.batches.map((b) => `${b.topic}-${b.partition}@${b.baseOffset}×${b.count}`).join(', ')}` : 'no ack was dropped')
    const on = await lostAck(ctx, 'on')
    const e = on.dropped?.type === 'ack-dropped' ? on.dropped : null
    const dedup = on.dedup.map((x) => (x.type === 'retry-deduplicated' ? { producerId: x.producerId, epoch: x.epoch, partition: `${x.topic}-${x.partition}`, baseSequence: x.baseSequence, count: x.count, originalOffset: x.baseOffset } : null))
    ctx.say(e ? `idempotence on: producer id ${e.producerId}, epoch ${e.epoch}, sequences ${e.batches.map((b) => `${b.topic}-${b.partition}:${b.baseSequence}..${b.baseSequence + b.count - 1}`).join(', ')}; the broker acknowledged the retry without appending it` : 'no ack was dropped')
    Object.assign(ctx.evidence, {
      idempotenceOff: { droppedAck: d, duplicates: off.report.duplicates, lost: off.report.lost },
      idempotenceOn: { droppedAck: e, deduplicatedRetries: dedup, duplicates: on.report.duplicates, lost: on.report.lost },
    })
    ctx.expect('an ack was dropped in both runs', d !== null && e !== null)
    ctx.expect('without idempotence the retry doubled the write: duplicates > 0', (off.report.duplicates ?? 0) > 0)
    ctx.expect('with idempotence the broker dropped the retry by its sequence number', dedup.length > 0)
    ctx.expect('with idempotence: 0 duplicates', on.report.duplicates === 0)
    ctx.expect('lost is 0 in both runs', off.report.lost === 0 && on.report.lost === 0)
    return `Without idempotence the retried batch was appended again (${off.report.duplicates} duplicates). With enable.idempotence the broker matched producer id, epoch and sequence and acknowledged the retry without appending it: 0 duplicates.`
  },
}
