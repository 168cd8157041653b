// The same kill at commit.interval.ms 100 and 5000: more records redone and a longer recovery at
// 5000, and a higher throughput too. The trade-off, in two runs.

import { pickWorkerWithTasks, type Scenario, type ScenarioContext, waitUntil } from './scenario.ts'

async function measure(ctx: ScenarioContext, commitIntervalMs: number) {
  const { time } = ctx
  const lab = await ctx.host.start({ guarantee: 'exactly_once', commitIntervalMs, ratePerSec: Number.POSITIVE_INFINITY, records: Number.POSITIVE_INFINITY, restartAfterMs: 500 })
  const commits: { t: number; total: number }[] = []
  lab.onEvent((e) => {
    if (e.type === 'offsets-committed') commits.push({ t: e.atMs, total: lab.committedTotal() })
  })
  const start = time.now()
  await time.sleep(10_500)
  // Processed throughput: committed offsets' advance between the first commit after warm-up and the last before the kill.
  const window = commits.filter((c) => c.t >= start + 1_000)
  const first = window[0]
  const last = window[window.length - 1]
  const throughput = first && last && last.t > first.t ? Math.round(((last.total - first.total) / (last.t - first.t)) * 1000) : null
  lab.kill(pickWorkerWithTasks(lab))
  await waitUntil(time, () => lab.tracker.recoveries[0]?.t1 != null, 30_000, 'recovery')
  const r = lab.tracker.recoveries[0]!
  const redone = r.partitions.reduce((n, p) => n + (p.positionAtKill - (p.committedAtKill ?? 0)), 0)
  await lab.destroy()
  return { commitIntervalMs, throughputPerSec: throughput, windowMs: first && last ? Math.round(last.t - first.t) : null, redone, recoveryMs: Math.round(r.t1! - r.t0) }
}

export const commitIntervalScenario: Scenario = {
  name: 'commit-interval',
  title: 'commit.interval.ms: throughput against recovery',
  summary: 'A longer commit interval puts more records in each transaction, so throughput rises; but a crash then throws away more uncommitted work, so more records are redone and recovery takes longer.',
  async run(ctx) {
    const a = await measure(ctx, 100)
    ctx.say(`commit.interval.ms=100: ${a.throughputPerSec} records/s; the kill redid ${a.redone} records; recovered in ${a.recoveryMs} ms`)
    const b = await measure(ctx, 5_000)
    ctx.say(`commit.interval.ms=5000: ${b.throughputPerSec} records/s; the kill redid ${b.redone} records; recovered in ${b.recoveryMs} ms`)
    Object.assign(ctx.evidence, { runs: [a, b] })
    ctx.expect('more records redone at 5000', b.redone > a.redone)
    ctx.expect('longer recovery at 5000', b.recoveryMs > a.recoveryMs)
    ctx.expect('higher throughput at 5000', a.throughputPerSec !== null && b.throughputPerSec !== null && b.throughputPerSec >= a.throughputPerSec)
    return `At 5000 ms the kill redid ${b.redone} records against ${a.redone} and recovery took ${b.recoveryMs} ms against ${a.recoveryMs} ms, for ${b.throughputPerSec} against ${a.throughputPerSec} records/s.`
  },
}
