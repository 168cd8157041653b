// read_committed and read_uncommitted consumers side by side on the same output partition during
// a run with aborts: the second sees aborted records, the first never does.

import { abortedRuns, largest, linkOf } from './evidence-links.ts'
import { aWorkerWithTasks, finishAndValidate, type Scenario, stallBoundMs, waitWhileProgressing } from './scenario.ts'

export const isolationScenario: Scenario = {
  name: 'isolation',
  title: 'read_committed against read_uncommitted',
  summary:
    'Aborted transactions leave their records in the log, marked by an ABORT marker. A read_uncommitted ' +
    'consumer delivers them; a read_committed one stops at the last stable offset and skips them.',
  async run(ctx) {
    const { time } = ctx
    // Each kill fires at a worker's next step 5, so input must still flow at the third: on Kafka every
    // kill costs a session timeout (10 s) before its partitions move, on the embedded log a second.
    const records = ctx.host.backend === 'kafka' ? 80_000 : 10_000
    const lab = await ctx.host.start({
      guarantee: 'exactly_once',
      commitIntervalMs: 500,
      ratePerSec: 2_000,
      records,
      restartAfterMs: 300,
    })
    const stallMs = stallBoundMs(lab)
    let killedAtMs = time.now()
    for (let i = 0; i < 3; i++) {
      await time.sleep(1_000)
      const before = lab.kills
      await lab.killConfirmed(await aWorkerWithTasks(lab), 5)
      await waitWhileProgressing(
        time,
        () => lab.kills > before,
        () => lab.committedTotal(),
        { stallMs, maxMs: 10 * stallMs, what: 'the kill' },
      )
      killedAtMs = time.now()
    }
    ctx.say(`3 workers killed before their commits: their transactions were aborted`)
    const report = await finishAndValidate(lab)
    const reader = lab.connection.reader()
    const inspector = lab.connection.inspector()
    let best = { partition: 0, committed: 0, uncommitted: 0, abortedSeenCommitted: 0, abortedSeenUncommitted: 0 }
    for (let p = 0; p < lab.partitions; p++) {
      const tp = { topic: lab.topics.output, partition: p }
      const { highWatermark } = await inspector.offsets(tp)
      const outcome = new Map(
        (await inspector.readRaw(tp, 0, highWatermark, Number.MAX_SAFE_INTEGER)).map((r) => [r.offset, r.txnOutcome]),
      )
      const rc = await reader.read(tp, 0, Number.MAX_SAFE_INTEGER, 'read_committed')
      const ru = await reader.read(tp, 0, Number.MAX_SAFE_INTEGER, 'read_uncommitted')
      const row = {
        partition: p,
        committed: rc.records.length,
        uncommitted: ru.records.length,
        abortedSeenCommitted: rc.records.filter((r) => outcome.get(r.offset) === 'aborted').length,
        abortedSeenUncommitted: ru.records.filter((r) => outcome.get(r.offset) === 'aborted').length,
      }
      if (row.abortedSeenUncommitted > best.abortedSeenUncommitted) best = row
    }
    const f = (name: keyof typeof best) => ctx.figure(name, best[name])
    ctx.say(
      `output-${f('partition')}: read_uncommitted delivered ${f('uncommitted')} records ` +
        `(${f('abortedSeenUncommitted')} aborted); read_committed delivered ${f('committed')} ` +
        `(${f('abortedSeenCommitted')} aborted)`,
    )
    for (const run of largest(await abortedRuns(lab, lab.topics.output, [best.partition]), 3)) {
      ctx.link(
        linkOf(
          `aborted on output-${run.partition} [${run.from}, ${run.to}): ${run.records} records ` +
            `read_uncommitted delivers and read_committed skips`,
          'output',
          run,
          killedAtMs,
        ),
      )
    }
    Object.assign(ctx.evidence, {
      sideBySide: best,
      abortedReads: report.abortedReads,
      abortedReadsUncommitted: report.abortedReadsUncommitted,
    })
    ctx.expect('read_uncommitted saw aborted records', best.abortedSeenUncommitted > 0)
    ctx.expect('read_committed never did', best.abortedSeenCommitted === 0 && report.abortedReads === 0)
    return (
      `On output-${best.partition} a read_uncommitted consumer received ${best.abortedSeenUncommitted} records ` +
      `of aborted transactions; the read_committed consumer beside it received none.`
    )
  },
}
