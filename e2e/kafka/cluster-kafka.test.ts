// A lab under exactly_once_v2 on a local three-broker KRaft cluster (scripts/kafka-cluster.sh,
// started and stopped by this file on its own ports: KAFKA_CLUSTER_PORT, default 26192-26197, and
// its own directory KAFKA_CLUSTER_DIR, default .kafka-cluster-test): the broker coordinating the
// lab's transactions is SIGKILLed, then, once it is back, the broker leading an input partition.
// The lab keeps processing and the validator finds nothing wrong. Then the server's dashboard on the
// same cluster, in Chromium: a broker killed from its card. A JDK, Maven and Chromium are
// prerequisites: without them the run fails. Measured on 2 cores at a load average of 25-40:
// 682 s for the file (the cluster's start, a next build, three labs' group formation).
// What it found: kafkajs re-sent a multi-broker produce call's in-flight request with new sequence
// numbers when another broker's request failed (286 and 2,249 duplicates in one run, one producer,
// one epoch, both copies committed); eoscope now sends one call per partition
// (server/log/kafka/partition-sends.ts), and the same run passes: 178 s for the file on 2 cores.

import { execFile } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM_PATH, chromiumAvailable, firstPage, launchBrowser, type Browser } from '../browser.ts'
import { ROOT as REPO, startServer, type ServerProcess } from '../server-process.ts'
import { isPartitionOf, type BrokerView } from '../../lib/broker-view.ts'
import type { LabSnapshot } from '../../lib/lab-protocol.ts'
import { ledgerCopies } from '../../lib/message-browser.ts'
import type { Lab } from '../../server/lab/lab.ts'
import { createKafkaLab } from '../../server/lab/kafka-lab.ts'
import { wholeJournal } from '../../server/lab/journal/__fixtures__/whole-journal.ts'
import { KAFKA_GROUP_TIMEOUTS } from '../../server/log/kafka/capabilities.ts'
import { KafkaConnection } from '../../server/log/kafka/kafka-connection.ts'
import { dumpRun } from '../../server/validator/dump.ts'
import { untilProgress, waitFor } from '../progress.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SCRIPT = path.join(ROOT, 'scripts/kafka-cluster.sh')
const PORT = Number(process.env.KAFKA_CLUSTER_PORT ?? 26192)
const DIR = process.env.KAFKA_CLUSTER_DIR ?? path.join(ROOT, '.kafka-cluster-test')
const BROKERS = [0, 1, 2].map((i) => `127.0.0.1:${PORT + i}`)
/** A state reached (a broker fenced, leaders moved, a broker back): a few session timeouts. */
const STATE_MS = 6 * KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs + 60_000
/** How long a figure that should move may stay still before a wait on it fails. */
const STALL_MS = 6 * KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs

async function cluster(command: string, ...args: string[]): Promise<void> {
  await promisify(execFile)('bash', [SCRIPT, command, ...args], {
    env: { ...process.env, KAFKA_PORT: String(PORT), KAFKA_BROKERS_COUNT: '3', KAFKA_DIR: DIR },
    timeout: 600_000,
  })
}

let lab: Lab | null = null
let server: ServerProcess | null = null
let browser: Browser | null = null
let snap = (): LabSnapshot => lab!.snapshot()
const brokerViews = (): BrokerView[] => snap().brokers?.brokers ?? []
const broker = (id: number): BrokerView | undefined => brokerViews().find((b) => b.id === id)
const committed = () => snap().totals.committedInput

/**
 * Waits until the validator has checked what is committed now, then expects every row at zero (the
 * journal's last entries in the message when not).
 */
async function validated(when: string): Promise<void> {
  const checked = committed()
  await untilProgress({
    what: `the validator past ${checked} input records`,
    read: () => snap().correctness?.inputChecked ?? 0,
    done: (n) => n >= checked,
    stallMs: STALL_MS,
    everyMs: 200,
  })
  const c = snap().correctness!
  const found = {
    duplicates: c.duplicates,
    lost: c.lost,
    abortedReads: c.abortedReads,
    stateMismatches: c.stateMismatches,
  }
  const copies = found.duplicates === 0 ? [] : await duplicateCopies()
  const failed = found.duplicates !== 0 || found.lost !== 0 || found.stateMismatches !== 0 || found.abortedReads !== 0
  const journal = failed ? journalTail() : []
  const dump = failed ? await dumpLogs(when) : null
  const context = `${when}: ${JSON.stringify({
    ...found,
    doubleAppliedUpdates: c.doubleAppliedUpdates,
    dump,
    duplicateKeys: c.duplicateKeys.slice(0, 5),
    ledger: (snap().duplicateLedger ?? []).slice(0, 3),
    copies,
    markers: snap()
      .markers.slice(-12)
      .map((m) => m.label),
    journal,
  })}`
  expect(found, context).toEqual({ duplicates: 0, lost: 0, abortedReads: 0, stateMismatches: 0 })
}

/**
 * The journal's last entries about the group, kills, faults and settings, and its last transactions
 * that did not commit, each with its time: what the workers went through before the validator
 * found something (rebalances, migrated or corrupted tasks, aborts).
 */
function journalTail(): string[] {
  // A fenced or corrupted task's whole reason (its label is cut for the page): the offsets it names.
  const line = (e: { atMs: number; label: string; fact: { kind: string; detail?: string } }) =>
    `${new Date(e.atMs).toISOString().slice(11, 23)} ${e.fact.kind === 'fenced' ? e.fact.detail : e.label}`
  // Every page: one page holds at most MAX_PAGE entries, and a lab commits ten transactions a second.
  const entries = wholeJournal(lab!)
  const events = entries.filter((e) => ['group', 'kills', 'faults', 'config'].includes(e.category)).slice(-40)
  const txns = entries.filter((e) => e.fact.kind === 'txn' && e.fact.outcome !== 'committed').slice(-20)
  return [...events, ...txns].sort((a, b) => a.atMs - b.atMs).map(line)
}

/**
 * Every record of the lab's topics, markers included, and the group's committed offsets, written
 * to the cluster's directory (server/validator/dump.ts): what `scripts/audit-dump.mjs` and the
 * validator read again after the run. Returns the directory, or why there is none.
 */
async function dumpLogs(when: string): Promise<string> {
  const dir = path.join(DIR, `dump-${Date.now()}-${when.replace(/[^a-z0-9]+/gi, '-').slice(0, 40)}`)
  const connection = new KafkaConnection({ brokers: BROKERS, clientId: 'eoscope-cluster-test-dump' })
  try {
    await dumpRun(connection.inspector(), dir, snap().applicationId ?? '')
    return dir
  } catch (e) {
    return `no dump: ${e instanceof Error ? e.message : String(e)}`
  } finally {
    await connection.close().catch(() => {})
  }
}

/**
 * Where the duplicates are: for the first ledger rows naming their copies, both copies as the log
 * holds them (producer id, epoch, sequence, transaction outcome): the same producer epoch and one
 * transaction say a retried produce, two transactions say input processed twice.
 */
async function duplicateCopies(): Promise<unknown[]> {
  const out: unknown[] = []
  for (const e of (snap().duplicateLedger ?? []).slice(0, 3)) {
    const c = ledgerCopies(e)
    if (!c || !lab?.messages) continue
    const row = async (offset: number) => {
      const page = await lab!.messages!({
        topic: 'output',
        partition: c.partition,
        from: offset,
        to: offset + 1,
        limit: 1,
      })
      const r = page.ok ? page.value.records[0] : undefined
      return r
        ? {
            offset: r.offset,
            producerId: r.producerId,
            epoch: r.producerEpoch,
            sequence: r.sequence,
            state: r.state,
            timestamp: r.timestamp,
          }
        : page
    }
    out.push({ source: c.source, first: await row(c.first), copy: await row(c.copy) })
  }
  return out
}

async function processesPast(n: number, what: string): Promise<void> {
  await untilProgress({ what, read: committed, done: (c) => c > n, stallMs: STALL_MS, everyMs: 200 })
}

beforeAll(async () => {
  if (!chromiumAvailable())
    throw new Error(
      `chromium not found at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH)`,
    )
  try {
    await cluster('reset')
    await cluster('start')
  } catch (e) {
    throw new Error(
      `could not start the three-broker cluster with scripts/kafka-cluster.sh on ports ${PORT}-${PORT + 5} (it ` +
        `needs java 17+ and mvn; see ${DIR}/node-*/broker.log): ${e instanceof Error ? e.message : e}`,
    )
  }
  lab = await createKafkaLab({
    client: { brokers: BROKERS, clientId: 'eoscope-cluster-test' },
    applicationIdPrefix: 'eoscope-cluster',
    ratePerSec: 300,
    validateIntervalMs: 1_000,
    localBrokersDir: DIR,
  })
}, 600_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await lab?.close()
  await cluster('stop').catch(() => {})
}, 120_000)

describe('a lab on a three-broker cluster with broker SIGKILLs', () => {
  it("shows three brokers with the lab's leaders and coordinators, and refuses to kill a broker it did not start", {
    timeout: STATE_MS * 4,
  }, async () => {
    // The group forms and commits (on a busy machine, a few session timeouts), then the brokers are read.
    await processesPast(300, 'the lab committing its first records')
    // Then exactly_once_v2, as a user switches it on the dashboard: the workers restart with it.
    expect(await lab!.execute('setConfig', { 'processing.guarantee': 'exactly_once_v2' })).toMatchObject({ ok: true })
    const switched = committed()
    await processesPast(switched + 300, 'the lab committing under exactly_once_v2')
    await waitFor(
      () =>
        brokerViews().length === 3 &&
        brokerViews().every((b) => b.up) &&
        brokerViews().some((b) => b.transactionCoordinatorOf.length > 0),
      'three brokers up, transactions coordinated',
      { boundMs: STATE_MS },
    )
    const views = brokerViews()
    expect(views.map((b) => [b.id, b.address])).toEqual([1, 2, 3].map((id) => [id, BROKERS[id - 1]]))
    expect(views.filter((b) => b.groupCoordinator)).toHaveLength(1)
    expect(views.filter((b) => b.controllerLeader)).toHaveLength(1)
    const s = snap()
    // Every partition of the input topic has a leader among the three (counted from the config: the task list
    // shrinks while a worker restarts with the new guarantee).
    expect(views.flatMap((b) => b.leaderOf).filter((p) => isPartitionOf(p, `${s.applicationId}-input`)).length).toBe(
      s.config.partitions,
    )
    expect(s.brokers!.faultsUnavailable).toBeNull()
    expect(await lab!.execute('killBroker', { brokerId: 9 })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not started by scripts\/kafka-cluster.sh/),
    })
    expect(brokerViews().every((b) => b.up)).toBe(true)
  })

  const survivesCoordinatorAndLeaderKills =
    "keeps processing under exactly_once_v2 when the transaction coordinator's broker and then an input " +
    "partition's leader are SIGKILLed, and the validator stays at zero"
  it(survivesCoordinatorAndLeaderKills, {
    timeout: STATE_MS * 6,
  }, async () => {
    // The broker coordinating the most of the lab's transactional ids, killed
    // mid-transaction (transactions commit every 100 ms).
    const coordinator = [...brokerViews()].sort(
      (a, b) => b.transactionCoordinatorOf.length - a.transactionCoordinatorOf.length,
    )[0]!
    expect(coordinator.transactionCoordinatorOf.length).toBeGreaterThan(0)
    const before1 = committed()
    expect(await lab!.execute('killBroker', { brokerId: coordinator.id })).toEqual({ ok: true })
    expect(snap().markers.some((m) => m.label.startsWith(`broker ${coordinator.id} killed (SIGKILL`))).toBe(true)
    await waitFor(() => broker(coordinator.id)?.up === false, `broker ${coordinator.id} shown down`, {
      boundMs: STATE_MS,
    })
    // Its transactional ids move to the brokers left; a second kill of it is refused.
    await waitFor(
      () =>
        brokerViews()
          .filter((b) => b.up)
          .some((b) => b.transactionCoordinatorOf.length > 0),
      'transaction coordinators moved',
      { boundMs: STATE_MS },
    )
    expect(await lab!.execute('killBroker', { brokerId: coordinator.id })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not running/),
    })
    await processesPast(before1 + 1_000, `processing after broker ${coordinator.id} was killed`)
    await validated(`after broker ${coordinator.id} (transaction coordinator) was killed`)

    expect(await lab!.execute('restartBroker', { brokerId: coordinator.id })).toMatchObject({ ok: true })
    await waitFor(() => broker(coordinator.id)?.up === true, `broker ${coordinator.id} back`, { boundMs: STATE_MS })

    // Then the leader of an input partition.
    const input = `${snap().applicationId}-input`
    const leader = brokerViews().find((b) => b.up && b.leaderOf.some((p) => isPartitionOf(p, input)))!
    expect(leader).toBeDefined()
    const led = leader.leaderOf.filter((p) => isPartitionOf(p, input))
    const before2 = committed()
    expect(await lab!.execute('killBroker', { brokerId: leader.id })).toEqual({ ok: true })
    await waitFor(
      () =>
        broker(leader.id)?.up === false && led.every((p) => brokerViews().some((b) => b.up && b.leaderOf.includes(p))),
      `the input partitions ${led.join(', ')} led by another broker`,
      { boundMs: STATE_MS },
    )
    await processesPast(before2 + 1_000, `processing after broker ${leader.id} was killed`)

    await validated(`after broker ${leader.id} (leader of ${led.join(', ')}) was killed`)
    expect(snap().config['processing.guarantee']).toBe('exactly_once_v2')
  })

  const killsBrokerFromCard =
    'kills a broker from its card in the browser: the card turns down, the lab keeps processing under ' +
    'exactly_once_v2, the validator stays at zero'
  it(killsBrokerFromCard, {
    timeout: STATE_MS * 4,
  }, async () => {
    const down = brokerViews().filter((b) => !b.up)
    await lab!.close()
    lab = null
    for (const b of down) await cluster('restart', String(b.id))
    server = await startServer({
      env: { EOSCOPE_BACKEND: 'kafka', KAFKA_BROKERS: BROKERS.join(','), KAFKA_CLUSTER_DIR: DIR },
      timeoutMs: 180_000,
    })
    let latest: LabSnapshot | null = null
    snap = () => latest!
    const url = server.url
    const read = async () => (latest = (await (await fetch(`${url}/api/lab`)).json()) as LabSnapshot)
    await read()
    const config = await fetch(`${url}/api/lab/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ 'processing.guarantee': 'exactly_once_v2' }),
    })
    expect(config.status).toBe(200)
    browser = await launchBrowser({ width: 1440, height: 900 })
    const errors: string[] = []
    const page = await firstPage(browser, errors)
    await page.goto(`${url}/recovery`)
    await page.getByTestId('brokers').waitFor({ timeout: STATE_MS })
    await waitFor(
      async () => {
        await read()
        return brokerViews().length === 3 && brokerViews().every((b) => b.up) && committed() > 300
      },
      'three brokers up and records committed',
      { boundMs: STATE_MS },
    )
    const input = `${snap().applicationId}-input`
    const victim = brokerViews().find((b) => b.leaderOf.some((p) => isPartitionOf(p, input)))!
    expect(await page.getByTestId(`kill-broker-${victim.id}`).isDisabled()).toBe(false)
    const before = committed()
    await page.getByTestId(`kill-broker-${victim.id}`).click()
    await page.locator(`[data-testid="broker-${victim.id}"][data-state="down"]`).waitFor({ timeout: STATE_MS })
    expect(await page.getByTestId(`restart-broker-${victim.id}`).isDisabled()).toBe(false)
    await page
      .screenshot({ path: path.join(REPO, 'test-results', 'kafka-broker-cards.png'), fullPage: true })
      .catch(() => {})
    await untilProgress({
      what: `processing after broker ${victim.id} was killed from its card`,
      read: async () => {
        await read()
        return committed()
      },
      done: (c) => c > before + 1_000,
      stallMs: STALL_MS,
      everyMs: 500,
    }).catch((e: unknown) => {
      // What the server and its workers said meanwhile (worker failures, the load's retries) is the diagnosis.
      throw new Error(
        `${e instanceof Error ? e.message : e}\nworkers: ` +
          `${JSON.stringify(snap().workers.map((w) => ({ id: w.id, state: w.state, error: w.error })))}\nserver ` +
          `log (last lines):\n${server!.output().split('\n').slice(-60).join('\n')}`,
      )
    })
    const checked = committed()
    await untilProgress({
      what: `the validator past ${checked} input records`,
      read: async () => {
        await read()
        return snap().correctness?.inputChecked ?? 0
      },
      done: (n) => n >= checked,
      stallMs: STALL_MS,
      everyMs: 500,
    })
    const c = snap().correctness!
    expect({
      duplicates: c.duplicates,
      lost: c.lost,
      abortedReads: c.abortedReads,
      stateMismatches: c.stateMismatches,
    }).toEqual({ duplicates: 0, lost: 0, abortedReads: 0, stateMismatches: 0 })
    expect(snap().config['processing.guarantee']).toBe('exactly_once_v2')
    expect(errors).toEqual([])
  })
})
