// Under at_most_once (eoscope's teaching mode, not a Kafka Streams setting) a worker commits its
// polled offsets first, then processes and produces. It dies after the commit and before the
// produce: the next owner starts past the records the commit covered, so they are lost, and none is
// ever written twice. Every lost record is traced to the window the kill cut, [acked, committed).

import { cutWindows, committedInputs, lostInputs, windowOf, type CutWindow } from './lost-records.ts'
import { linkOf, spans } from './evidence-links.ts'
import {
  aWorkerWithTasks,
  finishAndValidate,
  outputProvenance,
  type Scenario,
  type ScenarioContext,
  stallBoundMs,
  waitWhileProgressing,
} from './scenario.ts'

const RATE_PER_SEC = 2_000
/** The kill's step: after the poll's commit (step 5, first under at_most_once) and processing, before the produce. */
const KILL_STEP = 3

const windowText = (w: CutWindow) => `p${w.partition} [${w.from}, ${w.to})`

async function crashAfterCommit(ctx: ScenarioContext): Promise<string> {
  // The load starts once the group has formed, as in crash-before-commit: on Kafka the workers join
  // one by one and a partition that moves meanwhile is read from its committed offset.
  const lab = await ctx.host.start({
    guarantee: 'at_most_once',
    commitIntervalMs: 1_000,
    ratePerSec: 0,
    records: 8_000,
    restartAfterMs: 500,
  })
  await aWorkerWithTasks(lab)
  lab.generator.setRate(RATE_PER_SEC)
  ctx.say(
    'at_most_once (a teaching mode, not a Kafka Streams setting): 3 workers on 6 partitions, 2,000 records/s; ' +
      'each poll commits its offsets before the records are processed and produced',
  )
  await ctx.time.sleep(1_500)
  const victim = await aWorkerWithTasks(lab)
  await lab.killConfirmed(victim, KILL_STEP)
  ctx.say(`armed: ${victim} dies at step 3, after its poll's offsets were committed and before it produces`)
  const stallMs = stallBoundMs(lab)
  await waitWhileProgressing(
    ctx.time,
    () => lab.kills > 0,
    () => lab.committedTotal(),
    { stallMs, maxMs: 10 * stallMs, what: 'the kill' },
  )
  const recovery = lab.tracker.recoveries[0]!
  const windows = cutWindows([recovery])
  const cutText =
    windows.length === 0
      ? 'no window cut (it had produced all it committed)'
      : `committed and never produced ${windows.map(windowText).join(', ')}`
  ctx.say(`killed ${victim}: ${cutText}`)
  const report = await finishAndValidate(lab)
  const { inputs, committed } = await committedInputs(lab)
  const lost = lostInputs(inputs, committed, await outputProvenance(lab))
  const inWindow = lost.filter((p) => windowOf(p, windows) !== null)
  const outside = spans(lost.filter((p) => windowOf(p, windows) === null))
  const cut = windows.reduce((n, w) => n + (w.to - w.from), 0)
  Object.assign(ctx.evidence, {
    guarantee: 'at_most_once',
    killedWorker: victim,
    killStep: KILL_STEP,
    lostWindows: windows.map(({ partition, from, to }) => ({ partition, from, to })),
    cut,
    lost: report.lost,
    lostFound: lost.length,
    lostInWindow: inWindow.length,
    lostOutsideWindow: outside,
    duplicates: report.duplicates,
    stateMismatches: report.stateMismatches,
    abortedReads: report.abortedReads,
    recoveryMs: recovery.t1 === null ? null : Math.round(recovery.t1 - recovery.t0),
  })
  ctx.expect('the kill cut a window: offsets committed and never produced', cut > 0)
  ctx.expect('records were lost: lost > 0', (report.lost ?? 0) > 0)
  ctx.expect('every lost record lies in the window the kill cut', lost.length > 0 && outside.length === 0)
  ctx.expect("the validator's lost figure counts each of them", report.lost === lost.length)
  ctx.expect('nothing was redone: 0 duplicates', report.duplicates === 0)
  ctx.expect('0 aborted reads', report.abortedReads === 0)
  // One link per partition: the lost records' offsets, with the window that holds them.
  for (const run of spans(lost)) {
    const w = windows.find((x) => x.partition === run.partition && run.from >= x.from && run.to <= x.to)
    const where = w ? `, inside the window the kill cut ${windowText(w)}` : ', outside every window the kill cut'
    ctx.link(
      linkOf(
        `lost: input-${run.partition} [${run.from}, ${run.to}) holds ${run.records} committed records with no ` +
          `output${where}`,
        'input',
        run,
        recovery.t0,
      ),
    )
  }
  const [lostN, inside, cutN, dups] = [
    ctx.figure('lost', report.lost),
    ctx.figure('lostInWindow', inWindow.length),
    ctx.figure('cut', cut),
    ctx.figure('duplicates', report.duplicates),
  ]
  const mismatches = ctx.figure('stateMismatches', report.stateMismatches)
  ctx.say(
    `${lostN} lost records, ${inside} of them inside the ${cutN}-record window the kill cut; ${dups} duplicates; ` +
      `${mismatches} keys whose state misses a lost update`,
  )
  const traced =
    outside.length === 0
      ? 'every one of them inside the window the kill cut'
      : `${lost.length - inWindow.length} of them outside the window the kill cut`
  return (
    `At-most-once committed the offsets before producing, so the crash lost ${lostN} records, ${traced}, and ` +
    `redid none: ${dups} duplicates. The price of never writing twice is losing what a crash interrupts.`
  )
}

export const crashAfterCommitScenario: Scenario = {
  name: 'crash-after-commit',
  title: 'Crash after the commit, before the produce (at_most_once)',
  summary:
    "Under at_most_once, eoscope's teaching mode, offsets are committed when polled (step 5 first). A worker dies " +
    'before step 3 (produce): the next owner starts past those records, so they are lost, and none is written twice.',
  run: crashAfterCommit,
}
