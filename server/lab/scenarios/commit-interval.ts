// The same kill at commit.interval.ms 100 and 5000: more records redone and a longer catch-up at
// 5000, and a higher throughput too. The trade-off, in two runs, on either backend: the figures
// come from the commits the workers report and the recovery tracker's phases.

import { linkOf } from './evidence-links.ts'
import { phaseDurations } from '../recovery-tracker.ts'
import { groupFormed, pickWorkerWithTasks, type Scenario, type ScenarioContext, stallBoundMs, waitUntil, waitWhileProgressing } from './scenario.ts'

/** The commit interval of the scenario's last run: the lab it ends on, whose replay windows its links show. */
const LAST_RUN_MS = 5_000

async function measure(ctx: ScenarioContext, commitIntervalMs: number, killAfterMs = 10_500) {
  const { time } = ctx
  // 12 partitions on 3 workers: four tasks, so four transactions, per worker and commit (exactly_once
  // runs one transactional producer per task), which is where a short commit interval costs. The
  // load is as fast as the workers take it, bounded to 50,000 records waiting.
  const lab = await ctx.host.start({ guarantee: 'exactly_once', partitions: 12, commitIntervalMs, ratePerSec: Number.POSITIVE_INFINITY, records: Number.POSITIVE_INFINITY, restartAfterMs: 500, maxBacklog: 50_000, sessionTimeoutMs: 2_000 })
  // The group's committed offsets as the commits themselves report them (the same on both backends).
  const committedTo: number[] = new Array<number>(lab.partitions).fill(0)
  const commits: { t: number; total: number }[] = []
  lab.onEvent((e) => {
    if (e.type !== 'offsets-committed') return
    for (const o of e.offsets) committedTo[o.partition] = Math.max(committedTo[o.partition] ?? 0, o.offset)
    commits.push({ t: e.atMs, total: committedTo.reduce((a, b) => a + b, 0) })
  })
  // The window opens once the group has formed: on Kafka that takes seconds.
  await waitUntil(time, () => groupFormed(lab), stallBoundMs(lab) * 6, 'the group to form (every partition owned, every worker owning one)')
  const start = time.now()
  await time.sleep(killAfterMs)
  // Processed throughput: how far the committed offsets advanced from the window's start to the
  // last commit before the kill. A window that ends on a commit counts every record processed in it,
  // whatever the commit interval; a window shorter than a few intervals would not.
  const last = commits[commits.length - 1]
  const throughput = last && last.t > start ? Math.round(((last.total - totalAt(commits, start)) / (last.t - start)) * 1000) : null
  if (killAfterMs < 10_500) {
    await lab.close()
    return { commitIntervalMs, throughputPerSec: throughput, windowMs: last ? Math.round(last.t - start) : null, redone: 0, recoveryMs: 0, catchUpMs: null }
  }
  // The same kill in both runs: the worker dies at step 5, just before it would commit, so the
  // work lost is one commit interval's worth.
  await lab.killConfirmed(pickWorkerWithTasks(lab), 5)
  // Recovery ends when the group's committed offset of every partition the kill hit passes where the
  // dead worker stood. Seen from the commits themselves as well as through the tracker's phases, so
  // an event of those phases arriving out of order under load cannot leave the wait open.
  const caughtUp = new Map<number, number>()
  lab.onEvent((e) => {
    const k = lab.tracker.recoveries[0]
    if (e.type !== 'offsets-committed' || !k) return
    for (const o of e.offsets) {
      const p = k.partitions.find((x) => x.partition === o.partition)
      if (p && o.offset >= p.positionAtKill && !caughtUp.has(o.partition)) caughtUp.set(o.partition, e.atMs)
    }
  })
  const recovered = () => {
    const k = lab.tracker.recoveries[0]
    return k !== undefined && (k.t1 != null || (k.partitions.length > 0 && k.partitions.every((p) => caughtUp.has(p.partition))))
  }
  // Recovery takes seconds (on Kafka a session timeout first); on a busy machine longer: the wait
  // fails only once the group stops committing for longer than a recovery could explain.
  await waitWhileProgressing(time, recovered, () => commits.length, { stallMs: stallBoundMs(lab) + commitIntervalMs, maxMs: 300_000, what: 'recovery' })
  const r = lab.tracker.recoveries[0]!
  if (r.t1 == null) r.t1 = Math.max(...r.partitions.map((p) => caughtUp.get(p.partition)!))
  const redone = r.partitions.reduce((n, p) => n + (p.positionAtKill - (p.committedAtKill ?? 0)), 0)
  // A clean stop (commit, leave the group): on the dashboard the last lab runs on after the scenario, at once.
  await lab.stop()
  // The redone records: each killed task's input from its last commit to its position at the kill.
  for (const p of r.partitions) if (p.positionAtKill > (p.committedAtKill ?? 0)) {
    const window = { partition: p.partition, from: p.committedAtKill ?? 0, to: p.positionAtKill }
    if (commitIntervalMs === LAST_RUN_MS) ctx.link(linkOf(`redone at commit.interval.ms=${commitIntervalMs}: input-${p.partition} [${window.from}, ${window.to})`, 'input', window, r.t0))
  }
  // Catch-up, the phase the commit interval drives: from the restored state until the committed
  // offsets pass where the dead worker stood (the redone records, then the next commit). Detection
  // (a session timeout, 10 s on Kafka, give or take a heartbeat) does not depend on it.
  const catchUp = phaseDurations(r).catchUp
  return { commitIntervalMs, throughputPerSec: throughput, windowMs: last ? Math.round(last.t - start) : null, redone, recoveryMs: Math.round(r.t1! - r.t0), catchUpMs: catchUp === null ? null : Math.round(catchUp) }
}

/** The committed total as of `t`: the last commit at or before it (0 before any). */
function totalAt(commits: readonly { t: number; total: number }[], t: number): number {
  let total = 0
  for (const c of commits) if (c.t <= t) total = c.total
  return total
}

export const commitIntervalScenario: Scenario = {
  name: 'commit-interval',
  title: 'commit.interval.ms: throughput against recovery',
  summary: 'A longer commit interval puts more records in each transaction, so throughput rises; but a crash then throws away more uncommitted work, so more records are redone and recovery takes longer: its catch-up, from the restored state until the offsets are committed past where the dead worker stood.',
  async run(ctx) {
    // Throughput is measured twice per interval, interleaved, and the better run kept: a shared
    // machine slows runs down, it never speeds one up.
    const a0 = await measure(ctx, 100, 6_000)
    const b0 = await measure(ctx, LAST_RUN_MS, 6_000)
    const a = await measure(ctx, 100)
    const b = await measure(ctx, LAST_RUN_MS)
    const best = (x: number | null, y: number | null) => (x === null ? y : y === null ? x : Math.max(x, y))
    const throughputRuns = { 100: [a0.throughputPerSec, a.throughputPerSec], 5000: [b0.throughputPerSec, b.throughputPerSec] }
    a.throughputPerSec = best(a.throughputPerSec, a0.throughputPerSec)
    b.throughputPerSec = best(b.throughputPerSec, b0.throughputPerSec)
    const f = (run: typeof a, name: 'throughputPerSec' | 'redone' | 'recoveryMs' | 'catchUpMs') => ctx.figure(`${run.commitIntervalMs}.${name}`, run[name])
    ctx.say(`commit.interval.ms=100: ${f(a, 'throughputPerSec')} records/s; the kill redid ${f(a, 'redone')} records; recovered in ${f(a, 'recoveryMs')} ms, ${f(a, 'catchUpMs')} ms of it catching up`)
    ctx.say(`commit.interval.ms=5000: ${f(b, 'throughputPerSec')} records/s; the kill redid ${f(b, 'redone')} records; recovered in ${f(b, 'recoveryMs')} ms, ${f(b, 'catchUpMs')} ms of it catching up`)
    Object.assign(ctx.evidence, { runs: [a, b], throughputRuns })
    ctx.expect('more records redone at 5000', b.redone > a.redone)
    ctx.expect('a longer catch-up at 5000 (the redone records, then the next commit)', a.catchUpMs !== null && b.catchUpMs !== null && b.catchUpMs > a.catchUpMs)
    ctx.expect('higher throughput at 5000', a.throughputPerSec !== null && b.throughputPerSec !== null && b.throughputPerSec >= a.throughputPerSec)
    return `At 5000 ms the kill redid ${b.redone} records against ${a.redone} and recovery took ${b.recoveryMs} ms against ${a.recoveryMs} ms (catching up ${b.catchUpMs} ms against ${a.catchUpMs} ms), for ${b.throughputPerSec} against ${a.throughputPerSec} records/s.`
  },
}
