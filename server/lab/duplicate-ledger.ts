// The duplicate ledger: which keys got duplicate outputs or double-applied updates, by how much,
// and from which kill or retry. Fed with the committed output records a read_committed consumer
// sees, in order; bounded memory (a sliding window of provenances per input partition).
//
// Double-applied updates are defined once, in server/validator/state-drift.ts: input records whose
// update reached a key's state twice. Here they are read off the extra copies: a redo that applied
// m updates a second time leaves its later copies up to m ahead of their first copies' running
// counts, so per fault and key the ledger counts the most an extra copy ran ahead, as the validator
// counts the most the key's outputs ran ahead of the replay.

import type { LedgerCopies, LedgerEntryWithCopies } from '../../lib/message-browser.ts'
import { decodeOutputValue } from '../../lib/records.ts'
import type { ConsumedRecord } from '../log/types.ts'

interface Seen {
  outputPartition: number
  outputOffset: number
  count: number
}

export interface ReplayWindow {
  id: string
  label: string
  partition: number
  from: number
  to: number
}

/**
 * How far behind the newest provenance of a partition a first copy is remembered. A redo after a
 * crash goes back one commit interval's worth of input at most, far less than this.
 */
const WINDOW = 50_000

interface KeyEntry {
  duplicates: number
  /** Double-applied updates of the faults before the key's latest first copy. */
  doubleApplied: number
  /** The most an extra copy ran ahead of its first copy since then (the fault under way). */
  ahead: number
  causes: Map<string, number>
  copies?: LedgerCopies
}

export class DuplicateLedger {
  private readonly seen = new Map<number, Map<number, Seen>>()
  private readonly newest = new Map<number, number>()
  private readonly byKey = new Map<string, KeyEntry>()
  private readonly perCause = new Map<string, number>()
  /** Output ranges [from, to) appended by a request whose ack was lost: a second copy of them is a retry's. */
  private readonly retried: { partition: number; from: number; to: number }[] = []
  windows: ReplayWindow[] = []
  total = 0

  noteRetriedBatch(outputPartition: number, baseOffset: number, count: number): void {
    this.retried.push({ partition: outputPartition, from: baseOffset, to: baseOffset + count })
    if (this.retried.length > 500) this.retried.shift()
  }

  private causeOf(first: Seen, inputPartition: number, inputOffset: number): string {
    if (
      this.retried.some(
        (r) => r.partition === first.outputPartition && first.outputOffset >= r.from && first.outputOffset < r.to,
      )
    )
      return 'retry after a lost ack'
    const w = this.windows.find((x) => x.partition === inputPartition && inputOffset >= x.from && inputOffset < x.to)
    return w ? w.label : 'unattributed'
  }

  observe(r: ConsumedRecord): void {
    const v = decodeOutputValue(r.value)
    if (!v) return
    const p = v.source.partition
    const o = v.source.offset
    let m = this.seen.get(p)
    if (!m) {
      m = new Map()
      this.seen.set(p, m)
    }
    const first = m.get(o)
    if (!first) {
      // A new input record's output: a redo before it is over, its double-applied updates settled.
      const done = this.byKey.get(v.key)
      if (done && done.ahead > 0) {
        done.doubleApplied += done.ahead
        done.ahead = 0
      }
      m.set(o, { outputPartition: r.partition, outputOffset: r.offset, count: v.count })
      const newest = Math.max(this.newest.get(p) ?? 0, o)
      this.newest.set(p, newest)
      if (m.size > WINDOW * 1.2) for (const k of m.keys()) if (k < newest - WINDOW) m.delete(k)
      return
    }
    this.total++
    const cause = this.causeOf(first, p, o)
    let e = this.byKey.get(v.key)
    if (!e) {
      e = { duplicates: 0, doubleApplied: 0, ahead: 0, causes: new Map() }
      this.byKey.set(v.key, e)
    }
    e.duplicates++
    if (first.outputPartition === r.partition)
      e.copies = {
        partition: r.partition,
        first: first.outputOffset,
        copy: r.offset,
        source: { partition: p, offset: o },
      }
    // The redo applied updates on top of a state that already had them: the running count is ahead by as many.
    e.ahead = Math.max(e.ahead, v.count - first.count)
    e.causes.set(cause, (e.causes.get(cause) ?? 0) + 1)
    this.perCause.set(cause, (this.perCause.get(cause) ?? 0) + 1)
  }

  duplicatesFrom(label: string): number {
    return this.perCause.get(label) ?? 0
  }

  entries(limit = 20): LedgerEntryWithCopies[] {
    return [...this.byKey.entries()]
      .sort((a, b) => b[1].duplicates - a[1].duplicates || (a[0] < b[0] ? -1 : 1))
      .slice(0, limit)
      .map(([key, e]) => ({
        key,
        duplicates: e.duplicates,
        doubleApplied: e.doubleApplied + e.ahead,
        causes: [...e.causes.entries()].map(([c, n]) => `${c} (${n})`),
        ...(e.copies ? { copies: e.copies } : {}),
      }))
  }
}
