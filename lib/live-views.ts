// What each page of the dashboard is sent on the socket. The overview draws the five steps, the
// workers, the charts and the latest transactions; the partition log, the producers, the group, the
// coordinators' view and the transaction statistics are for the deeper pages, and were half of the
// bytes of every push. A socket names its view (handshake auth, then the `view` event on a page
// change); the server leaves out what that view does not draw. Isomorphic and pure.

import type { LabSnapshot } from './lab-protocol.ts'
import type { Patch } from './live-delta.ts'

export const LIVE_VIEWS = ['all', 'overview'] as const
export type LiveView = (typeof LIVE_VIEWS)[number]

/** The parts of a snapshot each view does not draw. */
export const PARTS_LEFT_OUT: Readonly<Record<LiveView, readonly (keyof LabSnapshot)[]>> = {
  all: [],
  overview: ['partitionLog', 'partitions', 'transactionsView', 'group', 'producers', 'duplicateLedger', 'txnStats'],
}

export function isLiveView(v: unknown): v is LiveView {
  return typeof v === 'string' && (LIVE_VIEWS as readonly string[]).includes(v)
}

/** The view a page of the dashboard needs: the overview at `/`, everything elsewhere. */
export function liveViewOf(pathname: string | null): LiveView {
  return pathname === '/' ? 'overview' : 'all'
}

/** The snapshot as the view is sent it: the same object for 'all', else a shallow copy without the parts left out. */
export function snapshotFor(s: LabSnapshot, view: LiveView): LabSnapshot {
  const out = PARTS_LEFT_OUT[view]
  if (out.length === 0) return s
  const copy = { ...s } as Record<string, unknown>
  for (const k of out) delete copy[k]
  return copy as unknown as LabSnapshot
}

/**
 * A delta's patch as the view is sent it: a snapshot's patch changes its parts by key, so leaving
 * a part out of the snapshot leaves its key out of the patch (an empty patch still moves the view
 * to the delta's seq, which the next delta builds on).
 */
export function patchFor(patch: Patch, view: LiveView): Patch {
  const out: readonly string[] = PARTS_LEFT_OUT[view]
  if (out.length === 0) return patch
  if (patch[0] === '=') return ['=', snapshotFor(patch[1] as LabSnapshot, view)]
  if (patch[0] !== 'o') return patch
  const changed = Object.fromEntries(Object.entries(patch[1]).filter(([k]) => !out.includes(k)))
  const deleted = (patch[2] ?? []).filter((k) => !out.includes(k))
  return deleted.length ? ['o', changed, deleted] : ['o', changed]
}
