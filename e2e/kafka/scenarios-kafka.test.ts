// The guided scenarios on a real broker (npm run test:kafka starts one), run as a user would:
// `eoscope scenario NAME --backend kafka --brokers …`. Each lab is a fresh application of worker
// processes behind the ack-drop proxy; the worker kills itself at step 5 (at step 3 under
// at_most_once) on a command from the commands topic (or stops itself at step 4: the zombie), the
// proxy loses a produce ack after the broker appended the batch, and every claim is read from the
// cluster's own log and coordinators (ABORT markers, copies of records, both isolation levels, the
// leaders' open transactions, the commits and recovery phases the workers report).

import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, inject, it } from 'vitest'
import type { ScenarioResult } from '../../server/lab/scenarios/scenario.ts'

const brokers = inject('kafkaBrokers')
const BIN = fileURLToPath(new URL('../../bin/eoscope.mjs', import.meta.url))
/**
 * An overall bound, far beyond a slow machine's pace: the scenario's own waits are on progress (the
 * group's committed offsets), and a recovery on Kafka waits a session timeout (10 s) per kill.
 */
const SCENARIO_BOUND_MS = 600_000

type Outcome = { code: number; result: ScenarioResult; stderr: string }
/** One run per scenario, shared by the tests that read it. */
const runs = new Map<string, Promise<Outcome>>()
function scenario(name: string): Promise<Outcome> {
  if (!runs.has(name)) runs.set(name, runScenario(name))
  return runs.get(name)!
}

async function runScenario(name: string): Promise<Outcome> {
  if (!brokers) throw new Error('no Kafka broker: run these tests with npm run test:kafka')
  const args = [BIN, 'scenario', name, '--backend', 'kafka', '--brokers', brokers, '--seed', '7', '--json']
  const r = await promisify(execFile)(process.execPath, args, {
    timeout: SCENARIO_BOUND_MS,
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({
      code: e.code ?? -1,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? '',
    }),
  )
  const last = r.stdout.trim().split('\n').pop() ?? ''
  if (!last.startsWith('{'))
    throw new Error(`eoscope scenario ${name} printed no result (exit ${r.code}):\n${r.stdout}\n${r.stderr}`)
  return { code: r.code, result: JSON.parse(last) as ScenarioResult, stderr: r.stderr }
}

/** The claims that failed; a claim the machine could not decide (its intervals overlap) is no failure. */
function failing(result: ScenarioResult): string[] {
  return result.expectations.filter((e) => !e.holds && e.undecided === undefined).map((e) => e.claim)
}

// One after the other: run side by side (nine worker processes on two cores) their claims about
// timing (a pause outlasting a session, a kill while input flows) no longer held.
describe('eoscope scenario --backend kafka', () => {
  it.each([
    ['crash-before-commit'],
    ['crash-before-commit-eos'],
    ['crash-after-commit'],
    ['lost-ack'],
    ['zombie'],
    ['hanging-transaction'],
    ['isolation'],
    ['commit-interval'],
  ])('%s: every expectation holds on the real broker', { timeout: SCENARIO_BOUND_MS + 60_000 }, async (name) => {
    const { code, result, stderr } = await scenario(name)
    expect(failing(result), `${result.narrative.map((n) => n.text).join('\n')}\n${stderr}`).toEqual([])
    expect(result).toMatchObject({ name, backend: 'kafka', passed: true })
    expect(result.expectations.length).toBeGreaterThan(0)
    expect(code).toBe(0)
  })

  it('zombie: fenced by producer epoch under exactly_once and by group generation under exactly_once_v2', {
    timeout: SCENARIO_BOUND_MS + 60_000,
  }, async () => {
    const { result } = await scenario('zombie')
    const e = result.evidence as Record<
      'exactly_once' | 'exactly_once_v2',
      { fencedWith: string; zombieTransactionRecords: { aborted: number; committed: number } }
    >
    // Each names what refused the zombie: its fenced producer epoch, or its group generation on the offset commit.
    expect(e.exactly_once.fencedWith).toMatch(/PRODUCER_FENCED/)
    expect(e.exactly_once_v2.fencedWith).toMatch(/ILLEGAL_GENERATION|UNKNOWN_MEMBER_ID|partitions lost/)
    for (const g of ['exactly_once', 'exactly_once_v2'] as const)
      expect(e[g].zombieTransactionRecords.aborted, g).toBeGreaterThan(0)
  })

  it("crash-before-commit: the duplicates are the kill's replay window, counted by the validator on the real topics", {
    timeout: SCENARIO_BOUND_MS + 60_000,
  }, async () => {
    const { result } = await scenario('crash-before-commit')
    const e = result.evidence as { duplicates: number; duplicatesInReplayWindow: number; redone: number; lost: number }
    expect(e.lost).toBe(0)
    expect(e.duplicates).toBeGreaterThan(0)
    expect(e.duplicatesInReplayWindow).toBe(e.duplicates)
    // Every duplicate is a record of the window; the window may hold records the dead worker had not yet produced.
    expect(e.duplicates).toBeLessThanOrEqual(e.redone)
    expect(result.figures.duplicates).toBe(e.duplicates)
  })

  it('crash-after-commit: every lost record lies in the window the kill cut, and none is written twice', {
    timeout: SCENARIO_BOUND_MS + 60_000,
  }, async () => {
    const { result } = await scenario('crash-after-commit')
    const e = result.evidence as {
      lost: number
      lostFound: number
      lostInWindow: number
      cut: number
      duplicates: number
    }
    expect(e.lost).toBeGreaterThan(0)
    expect(e.lostFound).toBe(e.lost)
    expect(e.lostInWindow).toBe(e.lost)
    // The window may hold records the broker had appended when the kill landed: at most it, never more.
    expect(e.lost).toBeLessThanOrEqual(e.cut)
    expect(e.duplicates).toBe(0)
    expect(result.figures.lost).toBe(e.lost)
    expect(result.links.some((l) => l.topic === 'input')).toBe(true)
  })

  it('commit-interval: the 5000 ms run redid more records, caught up longer and ran faster than the 100 ms run', {
    timeout: SCENARIO_BOUND_MS + 60_000,
  }, async () => {
    const { result } = await scenario('commit-interval')
    const f = result.figures
    expect(f['5000.redone']).toBeGreaterThan(f['100.redone']!)
    expect(f['5000.catchUpMs']).toBeGreaterThan(f['100.catchUpMs']!)
    // Catch-up is a part of the recovery, whose detection (a session timeout) is the same at both intervals.
    for (const ms of [100, 5000]) expect(f[`${ms}.catchUpMs`]).toBeLessThanOrEqual(f[`${ms}.recoveryMs`]!)
    // Throughput: the median of three runs per interval, each over whole commit intervals of every partition.
    const runs = (result.evidence as { throughputRuns: Record<'100' | '5000', number[]> }).throughputRuns
    for (const ms of ['100', '5000'] as const) expect(runs[ms]).toHaveLength(3)
    // Faster when the runs' ranges are apart; otherwise the scenario says so and does not claim it.
    const claim = result.expectations.find((e) => e.claim.startsWith('higher throughput at 5000'))!
    if (Math.min(...runs['5000']) > Math.max(...runs['100'])) expect(claim.holds).toBe(true)
    else if (Math.max(...runs['5000']) < Math.min(...runs['100'])) expect(claim.holds).toBe(false)
    else expect(claim.undecided, JSON.stringify(runs)).toMatch(/^not distinguishable on this machine/)
  })
})
