// The message browser's reads, through the log connection's ports so that they are the same on
// both backends: the partition's offsets and its stored records from the inspector (control
// markers and each transaction's outcome included), and what a read_committed and a
// read_uncommitted consumer are given over the same range from the reader. Nothing is written.

import type { MessagePage, MessageQuery } from '../../lib/message-browser.ts'
import type { IsolationLevel } from '../../lib/streams-config.ts'
import type { LogConnection, LogReader, TopicPartition } from '../log/types.ts'
import { messagePage, planRange } from './message-browser.ts'

export interface BrowsedLab {
  connection: LogConnection
  topics: { input: string; output: string; changelog: string }
  partitions: number
}

/** Fetches a reader hands back at most per isolation level and request (each gives one batch or more). */
const MAX_FETCHES = 200

/** The offsets of [from, to) a consumer at this isolation level is given. */
export async function visibleOffsets(
  reader: LogReader,
  tp: TopicPartition,
  from: number,
  to: number,
  isolation: IsolationLevel,
): Promise<Set<number>> {
  const seen = new Set<number>()
  let at = from
  for (let i = 0; i < MAX_FETCHES && at < to; i++) {
    const r = await reader.read(tp, at, to - at, isolation)
    for (const rec of r.records) if (rec.offset < to) seen.add(rec.offset)
    // read_committed stops at the last stable offset: no progress means nothing more is given.
    if (r.nextOffset <= at) break
    at = r.nextOffset
  }
  return seen
}

/** One page of the message browser; a bad topic, partition or range is refused with why. */
export async function browseMessages(
  lab: BrowsedLab,
  q: MessageQuery,
): Promise<{ ok: true; value: MessagePage } | { ok: false; error: string }> {
  const tp = { topic: lab.topics[q.topic], partition: q.partition }
  const inspector = lab.connection.inspector()
  if (q.partition >= lab.partitions)
    return {
      ok: false,
      error:
        `partition ${q.partition} does not exist: topic ${q.topic} has ${lab.partitions} (0 to ` +
        `${lab.partitions - 1})`,
    }
  const offsets = await inspector.offsets(tp)
  const plan = planRange(q, lab.partitions, offsets)
  if (!plan.ok) return plan
  const range = plan.value
  const reader = lab.connection.reader()
  const [stored, readCommitted, readUncommitted] = await Promise.all([
    inspector.readRaw(tp, range.from, range.scanEnd, range.scanEnd - range.from),
    visibleOffsets(reader, tp, range.from, range.scanEnd, 'read_committed'),
    visibleOffsets(reader, tp, range.from, range.scanEnd, 'read_uncommitted'),
  ])
  return {
    ok: true,
    value: messagePage({
      query: q,
      role: q.topic,
      topic: tp.topic,
      partitions: lab.partitions,
      offsets,
      range,
      stored,
      readCommitted,
      readUncommitted,
    }),
  }
}
