// A worker dies after the broker acked its output (step 4) and before it committed its offsets
// (step 5). Under at_least_once the next owner redoes those records; under exactly_once the open
// transaction is aborted and the new owner restores its state from the changelog.

import type { ProcessingGuarantee } from '../../../lib/streams-config.ts'
import { taskIdOf } from '../../../lib/task-id.ts'
import { transactionsInLog } from '../../runtime/log-transactions.ts'
import type { ValidationReport } from '../../validator/report.ts'
import { abortedRuns, duplicateRuns, largest, linkOf, type OffsetRun, spans } from './evidence-links.ts'
import {
  aWorkerWithTasks,
  collect,
  finishAndValidate,
  outputProvenance,
  type Provenance,
  type Scenario,
  type ScenarioContext,
  stallBoundMs,
  waitWhileProgressing,
} from './scenario.ts'

const RATE_PER_SEC = 2_000

async function crashBeforeCommit(ctx: ScenarioContext, guarantee: ProcessingGuarantee): Promise<string> {
  const { time } = ctx
  // The load starts once the group has formed. On Kafka the workers join one by one, each join
  // moves partitions, and kafkajs gives no hook before a partition leaves its owner: records fed
  // while the group forms would be redone by their next owner, duplicates that no kill caused.
  const lab = await ctx.host.start({
    guarantee,
    commitIntervalMs: 1_000,
    ratePerSec: 0,
    records: 8_000,
    restartAfterMs: 500,
  })
  const events = collect(lab)
  await aWorkerWithTasks(lab)
  lab.generator.setRate(RATE_PER_SEC)
  ctx.say(
    `${guarantee}: 3 workers on 6 partitions, 2,000 records/s from when the group has formed, commit.interval.ms=1000`,
  )
  await time.sleep(1_500)
  const victim = await aWorkerWithTasks(lab)
  // On Kafka the kill travels to the worker process on the commands topic: it has been taken once this resolves.
  await lab.killConfirmed(victim, 5)
  ctx.say(`armed: ${victim} dies at step 5, after its output was acknowledged and before its offsets are committed`)
  const stallMs = stallBoundMs(lab)
  await waitWhileProgressing(
    time,
    () => lab.kills > 0,
    () => lab.committedTotal(),
    { stallMs, maxMs: 10 * stallMs, what: 'the kill' },
  )
  const recovery = lab.tracker.recoveries[0]!
  const windows = recovery.partitions.map((p) => ({
    partition: p.partition,
    from: p.committedAtKill ?? 0,
    to: p.positionAtKill,
  }))
  const redone = windows.filter((w) => w.to > w.from)
  const replayWindow =
    redone.length === 0
      ? 'empty (it had committed everything it processed)'
      : redone.map((w) => `p${w.partition} [${w.from}, ${w.to})`).join(', ')
  ctx.say(`killed ${victim}: replay window ${replayWindow}`)
  for (const w of windows)
    if (w.to > w.from)
      ctx.link(
        linkOf(
          `replay window: input-${w.partition} [${w.from}, ${w.to}) redone by the next owner`,
          'input',
          w,
          recovery.t0,
        ),
      )
  const report = await finishAndValidate(lab)
  const provenance = await outputProvenance(lab)
  const dups = [...provenance.values()].filter((e) => e.copies > 1)
  const inWindow = dups.filter((d) =>
    windows.some((w) => w.partition === d.partition && d.offset >= w.from && d.offset < w.to),
  )
  const outside = spans(dups.filter((d) => !inWindow.includes(d)))
  // Aborted transactions as the log holds them (ABORT markers): the one the new owner's
  // fence aborted included, which no worker reports.
  const aborted = (await transactionsInLog(lab.connection.inspector(), [lab.topics.output, lab.topics.changelog]))
    .aborted
  const restores = events.filter(
    (e) =>
      e.type === 'restore-end' &&
      recovery.partitions.some((p) => taskIdOf(p.partition) === e.taskId) &&
      e.atMs > recovery.t0,
  )
  Object.assign(ctx.evidence, {
    guarantee,
    killedWorker: victim,
    replayWindows: windows,
    redone: windows.reduce((n, w) => n + (w.to - w.from), 0),
    duplicates: report.duplicates,
    duplicatesInReplayWindow: inWindow.length,
    duplicatesOutsideReplayWindow: outside,
    duplicateKeys: report.duplicateKeys.slice(0, 10),
    stateMismatches: report.stateMismatches,
    lost: report.lost,
    abortedTransactions: aborted,
    restoredTasks: restores.map((e) =>
      e.type === 'restore-end' ? `${e.taskId} on ${e.workerId}: ${e.records} changelog records` : '',
    ),
    recoveryMs: recovery.t1 === null ? null : Math.round(recovery.t1 - recovery.t0),
  })
  ctx.expect('lost is 0', report.lost === 0)
  if (guarantee === 'at_least_once') return atLeastOnceVerdict(ctx, report, dups, inWindow, outside, recovery.t0)
  ctx.expect('0 duplicates', report.duplicates === 0)
  ctx.expect('0 state mismatches', report.stateMismatches === 0)
  ctx.expect('0 aborted reads', report.abortedReads === 0)
  ctx.expect('the open transaction was aborted: at least 1 aborted transaction', aborted >= 1)
  ctx.expect('the new owner restored the state from the changelog', restores.length > 0)
  const killedParts = recovery.partitions.map((p) => p.partition)
  for (const run of largest(await abortedRuns(lab, lab.topics.output, killedParts), 2))
    ctx.link(
      linkOf(
        `aborted: output-${run.partition} [${run.from}, ${run.to}), ${run.records} records of the dead ` +
          `worker's transaction and its ABORT marker`,
        'output',
        run,
        recovery.t0,
      ),
    )
  ctx.say(
    `${ctx.figure('abortedTransactions', aborted)} transaction(s) aborted with ABORT markers; state restored ` +
      `from the changelog; ${ctx.figure('duplicates', report.duplicates)} duplicates`,
  )
  return (
    `Exactly-once aborted the dead worker's open transaction (its output, changelog writes and offsets ` +
    `together), so the redone records replaced invisible ones: 0 duplicates and 0 state mismatches.`
  )
}

/** The at_least_once verdict: the next owner redid the replay window, so duplicates and inflated counts. */
function atLeastOnceVerdict(
  ctx: ScenarioContext,
  report: ValidationReport,
  dups: readonly Provenance[],
  inWindow: readonly Provenance[],
  outside: readonly OffsetRun[],
  t0: number,
): string {
  ctx.expect('the next owner redid the work: duplicates > 0', (report.duplicates ?? 0) > 0)
  ctx.expect(
    'every duplicate comes from the replay window of the kill',
    dups.length > 0 && inWindow.length === dups.length,
  )
  ctx.expect('running counts were inflated: state mismatches > 0', (report.stateMismatches ?? 0) > 0)
  for (const run of duplicateRuns(dups))
    ctx.link(
      linkOf(
        `duplicates: output-${run.partition} [${run.from}, ${run.to}) holds ${run.records} copies of records ` +
          `written more than once`,
        'output',
        run,
        t0,
      ),
    )
  const [duplicates, inside, mismatches, redone] = [
    ctx.figure('duplicates', report.duplicates),
    ctx.figure('duplicatesInReplayWindow', inWindow.length),
    ctx.figure('stateMismatches', report.stateMismatches),
    ctx.figure('redone', ctx.evidence.redone as number),
  ]
  const doubleApplied = ctx.figure('doubleAppliedUpdates', report.doubleAppliedUpdates)
  const where =
    outside.length === 0
      ? `all ${inside} inside the replay window`
      : `${inside} inside the replay window and ${dups.length - inWindow.length} outside it, redone from input ` +
        `${outside.map((r) => `p${r.partition} [${r.from}, ${r.to})`).join(', ')}`
  ctx.say(
    `${duplicates} duplicate outputs, ${where}; ${mismatches} keys with state mismatches, holding ` +
      `${doubleApplied} double-applied updates`,
  )
  const traced =
    outside.length === 0
      ? 'every one traced to the replay window'
      : `not all of them traced to the replay window (${dups.length - inWindow.length} outside it)`
  return (
    `At-least-once redid the ${redone} records between the last commit and the crash: ${duplicates} duplicate ` +
    `outputs and ${doubleApplied} double-applied updates in ${mismatches} keys with state mismatches, ${traced}.`
  )
}

export const crashBeforeCommitScenario: Scenario = {
  name: 'crash-before-commit',
  title: 'Crash after the ack, before the commit (at_least_once)',
  summary:
    'A worker dies between step 4 (broker ack) and step 5 (commit offsets). The next owner starts from the ' +
    'last committed offset and redoes the records: duplicates and inflated counts.',
  run: (ctx) => crashBeforeCommit(ctx, 'at_least_once'),
}

export const crashBeforeCommitEosScenario: Scenario = {
  name: 'crash-before-commit-eos',
  title: 'The same crash under exactly_once',
  summary:
    'Output, changelog and offsets are one transaction. The crash leaves it open; the new owner fences it ' +
    '(ABORT markers), restores state from the committed changelog and redoes the records: nothing is visible ' +
    'twice.',
  run: (ctx) => crashBeforeCommit(ctx, 'exactly_once'),
}
