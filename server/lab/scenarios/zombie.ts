// A worker is paused past session.timeout.ms while its transaction holds records; its tasks move;
// it wakes and tries to commit. It is fenced (by producer epoch under exactly_once, by group
// generation under exactly_once_v2) and nothing it wrote becomes visible.

import type { ProcessingGuarantee } from '../../../lib/streams-config.ts'
import type { OffsetRun } from './evidence-links.ts'
import { collect, finishAndValidate, pickWorkerWithTasks, type Scenario, type ScenarioContext, waitUntil, embeddedLab } from './scenario.ts'

async function zombie(ctx: ScenarioContext, guarantee: ProcessingGuarantee) {
  const { time } = ctx
  const lab = embeddedLab(await ctx.host.start({ guarantee, commitIntervalMs: 1_000, ratePerSec: 1_000, records: 6_000, restartAfterMs: null, sessionTimeoutMs: 1_000 }))
  const events = collect(lab)
  await time.sleep(1_500)
  const victim = pickWorkerWithTasks(lab)
  const slot = lab.slotOf(victim)!
  lab.pause(victim, 4)
  await waitUntil(time, () => slot.process.state === 'paused', 5_000, 'the pause')
  // The producer ids and epochs of the transactions open at the pause (KIP-890: one epoch per transaction).
  const producers = slot.worker!.producers()
  const tasks = [...slot.worker!.tasks.values()].map((t) => t.id)
  ctx.say(`${guarantee}: ${victim} paused after step 4 with an open transaction (tasks ${tasks.join(', ')}; producers ${producers.map((p) => `${p.transactionalId} id ${p.producerId} epoch ${p.epoch}`).join('; ')})`)
  await waitUntil(time, () => events.some((e) => 'source' in e && e.type === 'group' && e.event.type === 'member-expired'), 10_000, 'the session to expire')
  await time.sleep(1_000)
  ctx.say(`session.timeout.ms passed: the group removed ${victim}; its tasks moved to other workers`)
  lab.resume(victim)
  ctx.say(`${victim} wakes up as a zombie and carries on where it stopped`)
  await waitUntil(time, () => events.some((e) => e.type === 'task-migrated' && e.workerId === victim), 10_000, 'the zombie to be fenced')
  const fencedAtMs = time.now()
  const fence = events.find((e) => e.type === 'task-migrated' && e.workerId === victim)
  const report = await finishAndValidate(lab)
  // Every record the zombie's producers wrote after the pause began: what became of it?
  const inspector = lab.connection.inspector()
  const open = new Set(producers.map((p) => `${p.producerId}.${p.epoch}`))
  const outcomes: Record<string, number> = { committed: 0, aborted: 0, pending: 0 }
  // The zombie's transactions that ended aborted: one epoch per transaction (KIP-890), so one per producer id and epoch.
  const abortedTxns = new Set<string>()
  // Where the zombie's aborted output lies, per output partition (from its first record to its last).
  const abortedOutput = new Map<number, OffsetRun>()
  for (const topic of [lab.topics.output, lab.topics.changelog]) {
    for (let p = 0; p < lab.options.partitions; p++) {
      const tp = { topic, partition: p }
      const { highWatermark } = await inspector.offsets(tp)
      for (const r of await inspector.readRaw(tp, 0, highWatermark, Number.MAX_SAFE_INTEGER)) {
        if (r.control === null && r.txnOutcome !== null && open.has(`${r.producerId}.${r.producerEpoch}`)) {
          outcomes[r.txnOutcome]!++
          if (r.txnOutcome === 'aborted') abortedTxns.add(`${r.producerId}.${r.producerEpoch}`)
          if (topic !== lab.topics.output || r.txnOutcome !== 'aborted') continue
          const run = abortedOutput.get(p) ?? { partition: p, from: r.offset, to: r.offset + 1, records: 0 }
          abortedOutput.set(p, { ...run, to: r.offset + 1, records: run.records + 1 })
        }
      }
    }
  }
  return { report, fence: fence?.type === 'task-migrated' ? fence.reason : null, outcomes, abortedTransactions: abortedTxns.size, producers, abortedOutput: [...abortedOutput.values()], fencedAtMs }
}

export const zombieScenario: Scenario = {
  name: 'zombie',
  title: 'A paused worker wakes up as a zombie',
  summary: 'A worker stops (SIGSTOP) holding an open transaction, is dropped from the group, and wakes up. It is fenced: under exactly_once by the new owner bumping the producer epoch, under exactly_once_v2 by the group generation on its offset commit. Nothing it wrote becomes visible.',
  notOnKafka: "its pause at step 4 and the zombie's own producers are read inside the embedded broker; on Kafka pause a worker (SIGSTOP) from its card on the dashboard",
  async run(ctx) {
    const results = []
    for (const g of ['exactly_once', 'exactly_once_v2'] as const) {
      const r = await zombie(ctx, g)
      results.push(r)
      const transactions = ctx.figure(`${g}.abortedTransactions`, r.abortedTransactions)
      ctx.say(`${g}: fenced with "${r.fence}"; the zombie's open transactions (${transactions}, one per producer it held): ${ctx.figure(`${g}.abortedRecords`, r.outcomes.aborted!)} records aborted, ${ctx.figure(`${g}.committedRecords`, r.outcomes.committed!)} committed`)
      // The lab the scenario ends on is the last one (exactly_once_v2): its zombie's aborted records.
      if (g === 'exactly_once_v2') for (const run of r.abortedOutput) ctx.link({ label: `the zombie's aborted transaction: output-${run.partition} [${run.from}, ${run.to}), ${run.records} records none of which became visible`, topic: 'output', partition: run.partition, fromOffset: run.from, toOffset: run.to, atMs: r.fencedAtMs })
      ctx.evidence[g] = { fencedWith: r.fence, zombieProducers: r.producers, zombieTransactionRecords: r.outcomes, duplicates: r.report.duplicates, lost: r.report.lost, stateMismatches: r.report.stateMismatches, openTransactions: r.report.openTransactions }
      ctx.expect(`${g}: the zombie was fenced`, r.fence !== null)
      ctx.expect(`${g}: the zombie's open transaction held records and none of them became visible`, r.outcomes.aborted > 0 && r.outcomes.committed === 0)
      ctx.expect(`${g}: 0 duplicates, 0 lost, 0 state mismatches`, r.report.duplicates === 0 && r.report.lost === 0 && r.report.stateMismatches === 0)
    }
    return `Both zombies were fenced when they woke (${results.map((r) => r.fence?.split(':')[0]).join('; ')}), and every record of their open transactions ended aborted: 0 duplicates.`
  },
}
