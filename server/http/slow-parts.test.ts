import { describe, expect, it } from 'vitest'
import type { LabSnapshot } from '../../lib/lab-protocol.ts'
import { diff } from '../../lib/live-delta.ts'
import { holdSlowParts } from './live-socket.ts'

const snap = (seq: number, log: string, txns: string) =>
  ({
    seq,
    atMs: seq,
    partitionLog: { cells: [log] },
    transactions: [{ id: txns }],
    totals: { kills: seq },
  }) as unknown as LabSnapshot

describe('holdSlowParts', () => {
  it('a slow part goes out at most once per its pace; the rest at every push', () => {
    const sentAt = new Map<string, number>()
    const paces = { partitionLog: 1_000, transactions: 500 }
    let sent = snap(0, 'a', 'a')
    const pushed: string[][] = []
    for (let t = 0; t <= 2_000; t += 100) {
      const next = snap(t / 100 + 1, `log${t}`, `txn${t}`)
      holdSlowParts(next, sent, paces, sentAt, t)
      const patch = diff(sent, next) as ['o', Record<string, unknown>]
      pushed.push(Object.keys(patch[1]).sort())
      sent = next
    }
    const at = (key: string) => pushed.flatMap((keys, i) => (keys.includes(key) ? [i * 100] : []))
    expect(at('partitionLog')).toEqual([0, 1_000, 2_000])
    expect(at('transactions')).toEqual([0, 500, 1_000, 1_500, 2_000])
    expect(at('totals')).toHaveLength(21)
  })

  it('with no paces every part goes out at every push', () => {
    const next = snap(2, 'b', 'b')
    holdSlowParts(next, snap(1, 'a', 'a'), {}, new Map(), 0)
    expect((next.partitionLog as unknown as { cells: string[] }).cells).toEqual(['b'])
  })

  it('a part the last push did not have stays absent while held, never null on the wire', () => {
    // A new lab (a reset, a scenario's lab) has not read its transactions view yet; a moment later it has.
    const sent = { seq: 1, atMs: 1 } as unknown as LabSnapshot
    const sentAt = new Map([['transactionsView', 0]])
    const first = { seq: 2, atMs: 2 } as unknown as LabSnapshot
    holdSlowParts(first, sent, { transactionsView: 2_000 }, sentAt, 100)
    expect(Object.hasOwn(first, 'transactionsView')).toBe(false)
    const wire = JSON.parse(JSON.stringify(diff(sent, first))) as ['o', Record<string, unknown>]
    expect(Object.keys(wire[1])).not.toContain('transactionsView')
    // Read meanwhile, it is held until its pace is due, then goes out.
    const read = { seq: 3, atMs: 3, transactionsView: { hanging: 0 } } as unknown as LabSnapshot
    holdSlowParts(read, first, { transactionsView: 2_000 }, sentAt, 200)
    expect(Object.hasOwn(read, 'transactionsView')).toBe(false)
    const due = { seq: 4, atMs: 4, transactionsView: { hanging: 0 } } as unknown as LabSnapshot
    holdSlowParts(due, read, { transactionsView: 2_000 }, sentAt, 2_000)
    expect(due.transactionsView).toEqual({ hanging: 0 })
  })
})
