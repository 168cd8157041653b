// Random schedules against the embedded broker's request methods (synchronous, no client layer):
// produce, retry with the same sequence, transactional offsets, commit, abort, crash, fence (a new
// InitProducerId of the same transactional.id), transaction timeout, a delayed EndTxn with a stale
// epoch, and a zombie that keeps going after it was fenced. A model says what each request must do;
// after every step the logs and the group are checked against it.

import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { errorCode } from '../fixtures/error-code.ts'
import { MockTime } from '../time.ts'
import type { ControlType, TopicPartition } from '../types.ts'
import { tpKey } from '../types.ts'
import { EmbeddedCluster, type ProduceRequest } from './embedded-cluster.ts'
import type { TxnEnded } from './transaction-coordinator.ts'

const TIMEOUT_MS = 100
const GROUP = 'app'
const OUT = 'out'
const IN = 'in'
const TIDS = ['tx-0', 'tx-1'] as const
const PARTITIONS = [0, 1] as const

type Action =
  | { t: 'init'; tid: number }
  | { t: 'produce'; tid: number; partition: number; n: number }
  | { t: 'retry'; tid: number }
  | { t: 'offsets'; tid: number }
  | { t: 'commit'; tid: number }
  | { t: 'abort'; tid: number }
  | { t: 'crash'; tid: number }
  | { t: 'timeout' }
  | { t: 'staleEndTxn'; tid: number; back: number; commit: boolean }
  | { t: 'zombie'; tid: number; partition: number }

type Outcome = 'open' | 'committed' | 'aborted'

interface Txn {
  tid: number
  producerId: number
  epoch: number
  values: string[]
  /** The input offset this transaction commits for the group, if any. */
  offset: number | null
  outcome: Outcome
}

interface Client {
  producerId: number
  epoch: number
  /** Its transaction was aborted by the timeout: the coordinator has moved past its epoch. */
  timedOut: boolean
  crashed: boolean
  added: Set<number>
  offsetsAdded: boolean
  sequences: Map<number, number>
  txn: Txn | null
  lastBatch: { request: ProduceRequest; baseOffset: number } | null
}

interface TidModel {
  current: Client | null
  zombies: Client[]
  /** Every epoch any client of this transactional.id was given. */
  epochs: number[]
}

const outTp = (partition: number): TopicPartition => ({ topic: OUT, partition })
const inTp = (tid: number): TopicPartition => ({ topic: IN, partition: tid })

const codeOf = (f: () => unknown): string | null => errorCode(f) ?? null

/** A cheap assertion for the checks run after every step (thousands per schedule). */
function ensure(condition: boolean, message: string): void {
  if (!condition) throw new Error(message)
}

/** One schedule: a fresh broker, the model, and the checks run after each step. */
class Schedule {
  readonly time = new MockTime()
  readonly cluster = new EmbeddedCluster(this.time)
  readonly tids: TidModel[] = TIDS.map(() => ({ current: null, zombies: [], epochs: [] }))
  readonly txns: Txn[] = []
  private ended: TxnEnded[] = []
  private valueSeq = 0
  private nextInputOffset = 1
  /** A read_committed consumer's position per output partition, and everything it was given. */
  private readonly positions = PARTITIONS.map(() => 0)
  private readonly delivered: { partition: number; offset: number }[] = []

  constructor() {
    this.cluster.createTopic({ topic: OUT, partitions: PARTITIONS.length })
    this.cluster.createTopic({ topic: IN, partitions: TIDS.length })
    this.cluster.onEvent((e) => {
      if (e.type === 'txn-ended') this.ended.push(e)
    })
  }

  private takeEnded(): TxnEnded[] {
    const out = this.ended
    this.ended = []
    for (const e of out) {
      const tid = TIDS.indexOf(e.transactionalId as (typeof TIDS)[number])
      const txn = this.txns.find(
        (t) => t.tid === tid && t.producerId === e.producerId && t.epoch === e.epoch && t.outcome === 'open',
      )
      // Every transaction the broker ends is one the model saw begin with a successful request.
      expect(txn, `unexpected ${e.outcome} of ${e.transactionalId} epoch ${e.epoch}`).toBeDefined()
      txn!.outcome = e.outcome
    }
    return out
  }

  private highWatermarks(): number[] {
    return PARTITIONS.map((p) => this.cluster.partitionLog(outTp(p)).highWatermark)
  }

  private beginTxn(tid: number, c: Client): Txn {
    if (c.txn?.outcome !== 'open') {
      c.txn = { tid, producerId: c.producerId, epoch: c.epoch, values: [], offset: null, outcome: 'open' }
      this.txns.push(c.txn)
    }
    return c.txn
  }

  private afterEndTxn(c: Client, epoch: number): void {
    c.epoch = epoch
    c.added.clear()
    c.offsetsAdded = false
    c.sequences.clear()
    c.txn = null
  }

  async apply(a: Action): Promise<void> {
    switch (a.t) {
      case 'init':
        return this.init(a.tid)
      case 'timeout':
        return this.timeout()
      case 'staleEndTxn':
        return this.staleEndTxn(a.tid, a.back, a.commit)
      case 'zombie':
        return this.zombie(a.tid, a.partition)
    }
    const c = this.tids[a.tid]!.current
    if (!c || c.crashed) return
    switch (a.t) {
      case 'produce':
        return this.produce(a.tid, c, a.partition, a.n)
      case 'retry':
        return this.retry(c)
      case 'offsets':
        return this.offsets(a.tid, c)
      case 'commit':
        return this.endTxn(a.tid, c, 'COMMIT')
      case 'abort':
        return this.endTxn(a.tid, c, 'ABORT')
      case 'crash':
        c.crashed = true
        return
    }
  }

  init(tid: number): void {
    const m = this.tids[tid]!
    const open = this.txns.filter((t) => t.tid === tid && t.outcome === 'open')
    const r = this.cluster.initProducerId(TIDS[tid]!, TIMEOUT_MS)
    const ended = this.takeEnded()
    // The previous epoch's open transaction, if any, is aborted as fenced; nothing else ends.
    expect(ended.map((e) => [e.outcome, e.reason, e.epoch])).toEqual(open.map((t) => ['aborted', 'fenced', t.epoch]))
    if (m.current) m.zombies.push(m.current)
    // The new epoch is newer than any epoch this transactional.id handed out before.
    expect(m.epochs.every((e) => e < r.epoch)).toBe(true)
    m.current = {
      producerId: r.producerId,
      epoch: r.epoch,
      timedOut: false,
      crashed: false,
      added: new Set(),
      offsetsAdded: false,
      sequences: new Map(),
      txn: null,
      lastBatch: null,
    }
    m.epochs.push(r.epoch)
  }

  produce(tid: number, c: Client, partition: number, n: number): void {
    const tp = outTp(partition)
    const hw = this.highWatermarks()
    const code = codeOf(() => {
      if (!c.added.has(partition)) {
        this.cluster.addPartitionsToTxn(TIDS[tid]!, c.producerId, c.epoch, [tp])
        this.beginTxn(tid, c)
        c.added.add(partition)
      }
      const baseSequence = c.sequences.get(partition) ?? 0
      const values = Array.from({ length: n }, () => `${TIDS[tid]}#${this.valueSeq++}`)
      const request: ProduceRequest = {
        producerId: c.producerId,
        epoch: c.epoch,
        transactionalId: TIDS[tid]!,
        batches: [{ ...tp, baseSequence, records: values.map((v) => ({ key: v, value: v })) }],
      }
      const [result] = this.cluster.produce(request)
      expect(result).toEqual({ ...tp, baseOffset: hw[partition], duplicate: false })
      c.sequences.set(partition, baseSequence + n)
      c.txn!.values.push(...values)
      c.lastBatch = { request, baseOffset: result!.baseOffset }
    })
    expect(this.takeEnded()).toEqual([])
    if (c.timedOut) {
      expect(code).toBe('PRODUCER_FENCED')
      expect(this.highWatermarks()).toEqual(hw)
    } else expect(code).toBeNull()
  }

  /** The same request again, as after a lost response: acknowledged as a duplicate or refused, never appended. */
  retry(c: Client): void {
    if (!c.lastBatch) return
    const hw = this.highWatermarks()
    const { request, baseOffset } = c.lastBatch
    let result: { baseOffset: number; duplicate: boolean } | undefined
    const code = codeOf(() => ([result] = this.cluster.produce(request)))
    if (code === null) expect(result).toMatchObject({ baseOffset, duplicate: true })
    else expect(['PRODUCER_FENCED', 'INVALID_TXN_STATE']).toContain(code)
    // Still in the same transaction at the same epoch, the retry must be recognised.
    if (c.txn?.outcome === 'open' && request.epoch === c.epoch) expect(code).toBeNull()
    expect(this.highWatermarks()).toEqual(hw)
    expect(this.takeEnded()).toEqual([])
  }

  offsets(tid: number, c: Client): void {
    const offset = this.nextInputOffset++
    const code = codeOf(() => {
      if (!c.offsetsAdded) {
        this.cluster.addOffsetsToTxn(TIDS[tid]!, c.producerId, c.epoch, GROUP)
        this.beginTxn(tid, c)
        c.offsetsAdded = true
      }
      this.cluster.txnOffsetCommit(TIDS[tid]!, c.producerId, c.epoch, GROUP, [{ ...inTp(tid), offset }], null)
      c.txn!.offset = offset
    })
    expect(this.takeEnded()).toEqual([])
    expect(code).toBe(c.timedOut ? 'PRODUCER_FENCED' : null)
  }

  endTxn(tid: number, c: Client, result: ControlType): void {
    const commit = result === 'COMMIT'
    const hadTxn = c.txn !== null && c.txn.outcome === 'open'
    let r: { epoch: number } | undefined
    const code = codeOf(() => (r = this.cluster.endTxn(TIDS[tid]!, c.producerId, c.epoch, result)))
    const ended = this.takeEnded()
    if (c.timedOut) {
      // A fenced epoch never commits. Its abort may be answered as the retry of the timeout's abort.
      expect(ended).toEqual([])
      if (commit) expect(code).toBe('PRODUCER_FENCED')
      if (code === null) {
        this.afterEndTxn(c, r!.epoch)
        c.timedOut = false
      }
      return
    }
    if (hadTxn) {
      expect(code).toBeNull()
      expect(ended.map((e) => [e.outcome, e.reason, e.epoch])).toEqual([
        [commit ? 'committed' : 'aborted', commit ? null : 'client', c.epoch],
      ])
      expect(r!.epoch).toBe(c.epoch + 1)
      this.tids[tid]!.epochs.push(r!.epoch)
      this.afterEndTxn(c, r!.epoch)
    } else {
      expect(ended).toEqual([])
      expect(code).toBe(commit ? 'INVALID_TXN_STATE' : null)
    }
  }

  async timeout(): Promise<void> {
    const open = this.txns.filter((t) => t.outcome === 'open')
    await this.time.runFor(TIMEOUT_MS + 1)
    this.cluster.tick()
    const ended = this.takeEnded()
    expect(ended.map((e) => [e.transactionalId, e.outcome, e.reason]).sort()).toEqual(
      open.map((t) => [TIDS[t.tid], 'aborted', 'timeout']).sort(),
    )
    for (const m of this.tids) {
      const c = m.current
      if (c?.txn && c.txn.outcome === 'aborted') c.timedOut = true
    }
  }

  /** A delayed EndTxn carrying an epoch older than the coordinator's: it changes nothing. */
  staleEndTxn(tid: number, back: number, commit: boolean): void {
    const m = this.tids[tid]!
    const meta = this.cluster.txnCoordinator.metadata(TIDS[tid]!)
    if (!meta) return
    const older = m.epochs.filter((e) => e < meta.epoch)
    if (older.length === 0) return
    const epoch = older[Math.max(0, older.length - back)]!
    const before = {
      state: meta.state,
      epoch: meta.epoch,
      partitions: [...meta.partitions.keys()],
      txnSeq: meta.txnSeq,
    }
    const hw = this.highWatermarks()
    const pending = this.cluster.group(GROUP).pendingPartitions()
    codeOf(() => this.cluster.endTxn(TIDS[tid]!, meta.producerId, epoch, commit ? 'COMMIT' : 'ABORT'))
    expect(this.takeEnded()).toEqual([])
    const after = this.cluster.txnCoordinator.metadata(TIDS[tid]!)!
    expect({
      state: after.state,
      epoch: after.epoch,
      partitions: [...after.partitions.keys()],
      txnSeq: after.txnSeq,
    }).toEqual(before)
    expect(this.highWatermarks()).toEqual(hw)
    expect(this.cluster.group(GROUP).pendingPartitions()).toEqual(pending)
  }

  /** A client fenced by a newer InitProducerId that does not know it yet: abort, then a whole transaction. */
  zombie(tid: number, partition: number): void {
    const z = this.tids[tid]!.zombies.filter((c) => !c.crashed).at(-1)
    if (!z) return
    const t = TIDS[tid]!
    const hw = this.highWatermarks()
    const pending = this.cluster.group(GROUP).pendingPartitions()
    const codes: (string | null)[] = []
    codes.push(
      codeOf(() => {
        const r = this.cluster.endTxn(t, z.producerId, z.epoch, 'ABORT')
        z.epoch = r.epoch
      }),
    )
    codes.push(codeOf(() => this.cluster.addPartitionsToTxn(t, z.producerId, z.epoch, [outTp(partition)])))
    codes.push(
      codeOf(() =>
        this.cluster.produce({
          producerId: z.producerId,
          epoch: z.epoch,
          transactionalId: t,
          batches: [
            { ...outTp(partition), baseSequence: 0, records: [{ key: 'zombie', value: `zombie#${this.valueSeq++}` }] },
          ],
        }),
      ),
    )
    codes.push(codeOf(() => this.cluster.addOffsetsToTxn(t, z.producerId, z.epoch, GROUP)))
    codes.push(codeOf(() => this.cluster.endTxn(t, z.producerId, z.epoch, 'COMMIT')))
    // The whole transaction is refused: nothing appended, nothing pending, nothing ended.
    expect(codes.slice(1)).toEqual(codes.slice(1).map(() => 'PRODUCER_FENCED'))
    expect(this.takeEnded()).toEqual([])
    expect(this.highWatermarks()).toEqual(hw)
    expect(this.cluster.group(GROUP).pendingPartitions()).toEqual(pending)
  }

  /** The invariants, checked after every step. */
  check(): void {
    const visible = new Set<string>()
    const stored = new Map<string, { outcome: string | null; belowLso: boolean }>()
    for (const p of PARTITIONS) {
      const log = this.cluster.partitionLog(outTp(p))
      const lso = log.lastStableOffset
      // read_committed never passes the LSO and never yields an aborted record.
      const all = log.read(0, Number.MAX_SAFE_INTEGER, 'read_committed')
      ensure(all.nextOffset <= lso, `read_committed of ${OUT}-${p} passed the LSO ${lso}`)
      for (const r of all.records) {
        ensure(r.offset < lso, `read_committed returned ${OUT}-${p}@${r.offset} at or past the LSO ${lso}`)
        const outcome = log.entryAt(r.offset)!.batch.outcome
        ensure(outcome === 'committed' || outcome === null, `read_committed returned ${outcome} record ${r.value}`)
        visible.add(r.value!)
      }
      // A consumer reading on from where it stopped is given only final, committed records.
      const next = log.read(this.positions[p]!, Number.MAX_SAFE_INTEGER, 'read_committed')
      for (const r of next.records) {
        const outcome = log.entryAt(r.offset)!.batch.outcome
        ensure(outcome === 'committed', `a consumer was given ${outcome} record ${r.value}`)
        this.delivered.push({ partition: p, offset: r.offset })
      }
      this.positions[p] = next.nextOffset
      // Every value is stored once: no retry was appended twice.
      for (const r of log.readRaw(0, log.highWatermark, Number.MAX_SAFE_INTEGER)) {
        if (r.control !== null) continue
        ensure(!stored.has(r.value!), `${r.value} stored twice`)
        stored.set(r.value!, { outcome: r.txnOutcome, belowLso: r.offset < lso })
      }
    }
    // A transaction's records and its offsets become visible together, or not at all: every record
    // carries the transaction's one outcome, its offset is applied exactly when it committed, and a
    // read_committed consumer sees a record exactly when it is committed and below the LSO (an
    // earlier open transaction of another producer may still hold it back).
    const group = this.cluster.group(GROUP)
    for (const txn of this.txns) {
      const want = txn.outcome === 'open' ? 'pending' : txn.outcome
      for (const v of txn.values) {
        const r = stored.get(v)!
        ensure(r.outcome === want, `${v} is stamped ${r.outcome}, its transaction is ${want}`)
        ensure(
          visible.has(v) === (txn.outcome === 'committed' && r.belowLso),
          `${v} visible: ${visible.has(v)}, transaction ${txn.outcome}`,
        )
      }
    }
    for (let tid = 0; tid < TIDS.length; tid++) {
      const committed = this.txns
        .filter((t) => t.tid === tid && t.outcome === 'committed' && t.offset !== null)
        .map((t) => t.offset!)
      const tp = inTp(tid)
      const offset = group.fetchCommitted([tp]).get(tpKey(tp.topic, tp.partition))
      const expected = committed.length > 0 ? Math.max(...committed) : null
      ensure(offset === expected, `committed offset of ${IN}-${tid} is ${offset}, expected ${expected}`)
      const pending = this.txns.some((t) => t.tid === tid && t.outcome === 'open' && t.offset !== null)
      const code = codeOf(() => group.fetchCommittedStable([tp]))
      ensure(
        code === (pending ? 'UNSTABLE_OFFSET_COMMIT' : null),
        `stable fetch of ${IN}-${tid} answered ${code}, pending: ${pending}`,
      )
    }
  }

  finalCheck(): void {
    for (const d of this.delivered)
      ensure(
        this.cluster.partitionLog(outTp(d.partition)).entryAt(d.offset)!.batch.outcome === 'committed',
        `delivered ${OUT}-${d.partition}@${d.offset} is not committed`,
      )
  }
}

const tid = fc.integer({ min: 0, max: TIDS.length - 1 })
const partition = fc.constantFrom(...PARTITIONS)

function actions(weights: Partial<Record<Action['t'], number>>): fc.Arbitrary<Action> {
  const w = (k: Action['t'], d: number) => weights[k] ?? d
  return fc.oneof(
    { weight: w('init', 2), arbitrary: fc.record({ t: fc.constant('init' as const), tid }) },
    {
      weight: w('produce', 8),
      arbitrary: fc.record({ t: fc.constant('produce' as const), tid, partition, n: fc.integer({ min: 1, max: 3 }) }),
    },
    { weight: w('retry', 3), arbitrary: fc.record({ t: fc.constant('retry' as const), tid }) },
    { weight: w('offsets', 3), arbitrary: fc.record({ t: fc.constant('offsets' as const), tid }) },
    { weight: w('commit', 4), arbitrary: fc.record({ t: fc.constant('commit' as const), tid }) },
    { weight: w('abort', 2), arbitrary: fc.record({ t: fc.constant('abort' as const), tid }) },
    { weight: w('crash', 1), arbitrary: fc.record({ t: fc.constant('crash' as const), tid }) },
    { weight: w('timeout', 1), arbitrary: fc.constant({ t: 'timeout' as const }) },
    {
      weight: w('staleEndTxn', 2),
      arbitrary: fc.record({
        t: fc.constant('staleEndTxn' as const),
        tid,
        back: fc.integer({ min: 1, max: 3 }),
        commit: fc.boolean(),
      }),
    },
    { weight: w('zombie', 2), arbitrary: fc.record({ t: fc.constant('zombie' as const), tid, partition }) },
  )
}

/** Both transactional ids start initialised, so a schedule spends its steps on the protocol. */
function schedules(weights: Partial<Record<Action['t'], number>>, maxLength: number): fc.Arbitrary<Action[]> {
  return fc
    .array(actions(weights), { minLength: 1, maxLength })
    .map((xs) => [{ t: 'init', tid: 0 } as Action, { t: 'init', tid: 1 } as Action, ...xs])
}

async function runSchedule(schedule: Action[]): Promise<void> {
  const s = new Schedule()
  for (const a of schedule) {
    await s.apply(a)
    s.check()
  }
  s.finalCheck()
}

// A bound proportional to the number of schedules run: a schedule takes well under 1 ms on an idle
// machine; 25 ms each leaves room for a machine shared with other CPU-heavy work. The seeds and run
// counts are fixed, so every run checks the same schedules whatever the load.
const MS_PER_SCHEDULE = 25
const boundFor = (numRuns: number) => ({ timeout: 30_000 + numRuns * MS_PER_SCHEDULE })
const ANY_RUNS = 8_000
const ZOMBIE_RUNS = 4_000

describe('the embedded broker under random schedules', () => {
  it(
    'keeps every invariant under any interleaving of produce, retry, commit, abort, crash, fence, timeout, ' +
      'stale EndTxn and zombies',
    boundFor(ANY_RUNS),
    async () => {
      await fc.assert(fc.asyncProperty(schedules({}, 30), runSchedule), { seed: 0x0e05c09e, numRuns: ANY_RUNS })
    },
  )

  it('never lets a stale EndTxn or a fenced zombie change a later transaction', boundFor(ZOMBIE_RUNS), async () => {
    const weights = { staleEndTxn: 6, zombie: 6, init: 4, commit: 5, timeout: 1, crash: 1 }
    await fc.assert(fc.asyncProperty(schedules(weights, 25), runSchedule), { seed: 0x4b1b890, numRuns: ZOMBIE_RUNS })
  })
})
