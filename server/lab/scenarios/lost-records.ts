// Every lost record of a lab, read from its logs (docs/measures.md#lost: a committed input record
// with no committed output), and the kill whose window holds each one. Under at_most_once a kill
// between the offset commit and the ack cuts [ackedAtKill, committedAtKill) of each partition the
// worker owned; a lost record outside every such window would be a loss no kill explains.

import { parseInputValue } from '../../../lib/records.ts'
import type { LabRuntime } from '../../runtime/lab-runtime.ts'
import type { KilledPartition } from '../../runtime/recovery-tracker.ts'
import { lostWindow } from '../../runtime/recovery-tracker.ts'
import type { Provenance } from './scenario.ts'

export interface InputPoint {
  partition: number
  offset: number
}

/** A window a kill cut: the records committed and never acknowledged at t0. */
export interface CutWindow {
  recoveryId: string
  workerId: string
  t0: number
  partition: number
  from: number
  to: number
}

/**
 * The lost records: every input record below its partition's committed offset, with a value that
 * parses (poison records go to the dead-letter topic), whose provenance no committed output names.
 */
export function lostInputs(
  inputs: readonly (InputPoint & { value: string | null })[],
  committed: readonly (number | null)[],
  provenance: ReadonlyMap<string, Provenance>,
): InputPoint[] {
  return inputs.filter(
    (r) =>
      r.offset < (committed[r.partition] ?? 0) &&
      parseInputValue(r.value) !== null &&
      !provenance.has(`${r.partition}@${r.offset}`),
  )
}

/** The windows the kills cut (at_most_once), one per partition a killed worker owned with such a window. */
export function cutWindows(
  recoveries: readonly { id: string; workerId: string; t0: number; partitions: readonly KilledPartition[] }[],
): CutWindow[] {
  return recoveries.flatMap((r) =>
    r.partitions.flatMap((p) => {
      const w = lostWindow(p)
      return w === null ? [] : [{ recoveryId: r.id, workerId: r.workerId, t0: r.t0, ...w }]
    }),
  )
}

/** The window that holds a record, or null. */
export function windowOf(point: InputPoint, windows: readonly CutWindow[]): CutWindow | null {
  return windows.find((w) => w.partition === point.partition && point.offset >= w.from && point.offset < w.to) ?? null
}

/** The lab's input records below the group's committed offsets, as the log holds them. */
export async function committedInputs(
  rt: LabRuntime,
): Promise<{ inputs: (InputPoint & { value: string | null })[]; committed: (number | null)[] }> {
  const inspector = rt.connection.inspector()
  // The group's offsets as the log holds them (the runtime's own view may be gone once it stopped).
  const committed: (number | null)[] = Array.from({ length: rt.partitions }, () => null)
  for (const o of await inspector.committedOffsets(rt.groupId))
    if (o.topic === rt.topics.input && o.partition < rt.partitions) committed[o.partition] = o.offset
  const inputs: (InputPoint & { value: string | null })[] = []
  for (let partition = 0; partition < rt.partitions; partition++) {
    const tp = { topic: rt.topics.input, partition }
    const { logStartOffset } = await inspector.offsets(tp)
    const to = committed[partition] ?? 0
    if (to <= logStartOffset) continue
    for (const r of await inspector.readRaw(tp, logStartOffset, to, Number.MAX_SAFE_INTEGER))
      if (r.control === null) inputs.push({ partition, offset: r.offset, value: r.value })
  }
  return { inputs, committed }
}
