// The dashboard's time control as pure state: live, or held on one snapshot (frozen by Pause, or a
// past frame fetched from GET /api/lab/at) while the lab runs on. Every panel renders the snapshot
// `viewedSnapshot` returns, so holding it holds them all on one moment.

import type { LabFrameResponse } from '../lib/journal.ts'

/** What a held view needs of a snapshot: the instant it shows. */
export interface Timed {
  atMs: number
}

/** pause: the live snapshot frozen by Pause; frame: a past frame from the journal. */
export type HeldSource = 'pause' | 'frame'

export type TimeView<S extends Timed> =
  | { mode: 'live' }
  | {
      mode: 'held'
      /** The snapshot every panel shows. */
      shown: S
      source: HeldSource
      /** The moment the user is at: the one asked for (a frame may be taken a little after it). */
      atMs: number
      /** The moment asked for and being fetched, or null. */
      seekingMs: number | null
      /** Why the last frame could not be shown, or null. */
      error: string | null
    }

export type TimeAction<S extends Timed> =
  | { type: 'pause'; live: S }
  | { type: 'live' }
  /** Asks for the frame at `atMs`; from live, freezes on `live` until it arrives. */
  | { type: 'seek'; atMs: number; live: S }
  | { type: 'frame'; atMs: number; frame: LabFrameResponse<S> }
  | { type: 'frame-failed'; atMs: number; error: string }

export const LIVE: TimeView<never> = { mode: 'live' }

export function timeReducer<S extends Timed>(state: TimeView<S>, action: TimeAction<S>): TimeView<S> {
  switch (action.type) {
    case 'pause':
      return state.mode === 'held'
        ? state
        : { mode: 'held', shown: action.live, source: 'pause', atMs: action.live.atMs, seekingMs: null, error: null }
    case 'live':
      return state.mode === 'live' ? state : { mode: 'live' }
    case 'seek':
      return state.mode === 'held'
        ? { ...state, atMs: action.atMs, seekingMs: action.atMs, error: null }
        : { mode: 'held', shown: action.live, source: 'pause', atMs: action.atMs, seekingMs: action.atMs, error: null }
    case 'frame':
      // Only the answer to the latest request counts; a late one for an earlier drag is dropped.
      if (state.mode !== 'held' || state.seekingMs !== action.atMs) return state
      return { ...state, shown: action.frame.snapshot, source: 'frame', seekingMs: null, error: null }
    case 'frame-failed':
      if (state.mode !== 'held' || state.seekingMs !== action.atMs) return state
      return { ...state, seekingMs: null, error: action.error }
  }
}

/** The snapshot the panels render: the live one, or the held one. */
export function viewedSnapshot<S extends Timed>(state: TimeView<S>, live: S | null): S | null {
  return state.mode === 'held' ? state.shown : live
}

const pad2 = (n: number) => String(n).padStart(2, '0')

/** A wall-clock time on this machine: "14:03:27". */
export function fmtClock(ms: number): string {
  const d = new Date(ms)
  return `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`
}

/** Whole seconds from `atMs` to `nowMs` (never negative). */
export function secondsBehind(atMs: number, nowMs: number): number {
  return Math.max(0, Math.round((nowMs - atMs) / 1000))
}

/** The header's line for the time control. */
export interface TimeStatus {
  /** "Live", "Paused at 14:03:27", "Viewing 14:02:10". */
  title: string
  /** What the lab is doing meanwhile, or null when live. */
  detail: string | null
}

export function timeStatus<S extends Timed>(state: TimeView<S>, liveAtMs: number | null): TimeStatus {
  if (state.mode === 'live') return { title: 'Live', detail: null }
  const behind = liveAtMs === null ? null : secondsBehind(state.shown.atMs, liveAtMs)
  const running = behind === null ? 'lab running' : `lab running, ${behind} s behind`
  if (state.source === 'pause') return { title: `Paused at ${fmtClock(state.shown.atMs)}`, detail: running }
  return {
    title: `Viewing the past: ${fmtClock(state.shown.atMs)}`,
    detail: `${running} · commands act on the live lab`,
  }
}
