// A worker dies after the broker acked its output (step 4) and before it committed its offsets
// (step 5). Under at_least_once the next owner redoes those records; under exactly_once the open
// transaction is aborted and the new owner restores its state from the changelog.

import type { ProcessingGuarantee } from '../../../lib/streams-config.ts'
import { taskIdOf } from '../../../lib/task-id.ts'
import { collect, finishAndValidate, outputProvenance, pickWorkerWithTasks, type Scenario, type ScenarioContext, waitUntil } from './scenario.ts'

async function crashBeforeCommit(ctx: ScenarioContext, guarantee: ProcessingGuarantee): Promise<string> {
  const { time } = ctx
  const lab = await ctx.host.start({ guarantee, commitIntervalMs: 1_000, ratePerSec: 2_000, records: 8_000, restartAfterMs: 500 })
  const events = collect(lab)
  ctx.say(`${guarantee}: 3 workers on 6 partitions, 2,000 records/s, commit.interval.ms=1000`)
  await time.sleep(1_500)
  const victim = pickWorkerWithTasks(lab)
  lab.kill(victim, 5)
  ctx.say(`armed: ${victim} dies at step 5, after its output was acknowledged and before its offsets are committed`)
  await waitUntil(time, () => lab.kills > 0, 5_000, 'the kill')
  const recovery = lab.tracker.recoveries[0]!
  const windows = recovery.partitions.map((p) => ({ partition: p.partition, from: p.committedAtKill ?? 0, to: p.positionAtKill }))
  ctx.say(`killed ${victim}: replay window ${windows.map((w) => `p${w.partition} [${w.from}, ${w.to})`).join(', ')}`)
  const report = await finishAndValidate(lab)
  const provenance = await outputProvenance(lab)
  const dups = [...provenance.values()].filter((e) => e.copies > 1)
  const inWindow = dups.filter((d) => windows.some((w) => w.partition === d.partition && d.offset >= w.from && d.offset < w.to))
  const aborted = events.filter((e) => 'source' in e && e.type === 'txn-ended' && e.outcome === 'aborted').length
  const restores = events.filter((e) => e.type === 'restore-end' && recovery.partitions.some((p) => taskIdOf(p.partition) === e.taskId) && e.atMs > recovery.t0)
  Object.assign(ctx.evidence, {
    guarantee,
    killedWorker: victim,
    replayWindows: windows,
    redone: windows.reduce((n, w) => n + (w.to - w.from), 0),
    duplicates: report.duplicates,
    duplicatesInReplayWindow: inWindow.length,
    duplicateKeys: report.duplicateKeys.slice(0, 10),
    stateMismatches: report.stateMismatches,
    lost: report.lost,
    abortedTransactions: aborted,
    restoredTasks: restores.map((e) => (e.type === 'restore-end' ? `${e.taskId} on ${e.workerId}: ${e.records} changelog records` : '')),
    recoveryMs: recovery.t1 === null ? null : Math.round(recovery.t1 - recovery.t0),
  })
  ctx.expect('lost is 0', report.lost === 0)
  if (guarantee === 'at_least_once') {
    ctx.expect('the next owner redid the work: duplicates > 0', (report.duplicates ?? 0) > 0)
    ctx.expect('every duplicate comes from the replay window of the kill', dups.length > 0 && inWindow.length === dups.length)
    ctx.expect('running counts were inflated: state mismatches > 0', (report.stateMismatches ?? 0) > 0)
    ctx.say(`${report.duplicates} duplicate outputs, all ${inWindow.length} inside the replay window; ${report.stateMismatches} state mismatches`)
    return `At-least-once redid the ${ctx.evidence.redone as number} records between the last commit and the crash: ${report.duplicates} duplicate outputs and ${report.stateMismatches} inflated aggregates, every one traced to the replay window.`
  }
  ctx.expect('0 duplicates', report.duplicates === 0)
  ctx.expect('0 state mismatches', report.stateMismatches === 0)
  ctx.expect('0 aborted reads', report.abortedReads === 0)
  ctx.expect('the open transaction was aborted: at least 1 aborted transaction', aborted >= 1)
  ctx.expect('the new owner restored the state from the changelog', restores.length > 0)
  ctx.say(`${aborted} transaction(s) aborted with ABORT markers; state restored from the changelog; 0 duplicates`)
  return `Exactly-once aborted the dead worker's open transaction (its output, changelog writes and offsets together), so the redone records replaced invisible ones: 0 duplicates and 0 state mismatches.`
}

export const crashBeforeCommitScenario: Scenario = {
  name: 'crash-before-commit',
  title: 'Crash after the ack, before the commit (at_least_once)',
  summary: 'A worker dies between step 4 (broker ack) and step 5 (commit offsets). The next owner starts from the last committed offset and redoes the records: duplicates and inflated counts.',
  run: (ctx) => crashBeforeCommit(ctx, 'at_least_once'),
}

export const crashBeforeCommitEosScenario: Scenario = {
  name: 'crash-before-commit-eos',
  title: 'The same crash under exactly_once',
  summary: 'Output, changelog and offsets are one transaction. The crash leaves it open; the new owner fences it (ABORT markers), restores state from the committed changelog and redoes the records: nothing is visible twice.',
  run: (ctx) => crashBeforeCommit(ctx, 'exactly_once'),
}
