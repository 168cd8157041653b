// The time control in a component: Pause, Live, and seeking to a moment (the frame fetched from
// GET /api/lab/at, the latest request winning). The socket keeps receiving meanwhile: `live` stays
// current for the header's "N s behind" and for the scrubber's span.

import { useCallback, useEffect, useReducer, useRef } from 'react'
import type { LabSnapshot } from '../lib/lab-protocol.ts'
import { fetchFrame } from './journal-client.ts'
import { LIVE, timeReducer, viewedSnapshot, type TimeView } from './time-travel.ts'

/** How long a drag of the scrubber rests before its frame is fetched. */
export const SEEK_DEBOUNCE_MS = 200

export interface UseTimeTravel {
  state: TimeView<LabSnapshot>
  /** The snapshot every panel renders. */
  viewed: LabSnapshot | null
  pause: () => void
  live: () => void
  /** Shows the frame at `atMs` now (a marker, an event-log link). */
  seek: (atMs: number) => void
  /** Freezes the view at once and fetches the frame once the moment rests (the scrubber's drag). */
  seekSoon: (atMs: number) => void
}

export function useTimeTravel(liveSnapshot: LabSnapshot | null): UseTimeTravel {
  const [state, dispatch] = useReducer(timeReducer<LabSnapshot>, LIVE as TimeView<LabSnapshot>)
  const liveRef = useRef(liveSnapshot)
  liveRef.current = liveSnapshot
  const request = useRef<AbortController | null>(null)
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)

  const cancel = useCallback(() => {
    if (timer.current) clearTimeout(timer.current)
    timer.current = null
    request.current?.abort()
    request.current = null
  }, [])

  const seek = useCallback(
    (atMs: number) => {
      const live = liveRef.current
      if (!live) return
      cancel()
      dispatch({ type: 'seek', atMs, live })
      const controller = new AbortController()
      request.current = controller
      fetchFrame(atMs, controller.signal).then(
        (frame) => dispatch({ type: 'frame', atMs, frame }),
        (err: unknown) => {
          if (controller.signal.aborted) return
          dispatch({ type: 'frame-failed', atMs, error: err instanceof Error ? err.message : String(err) })
        },
      )
    },
    [cancel],
  )

  const seekSoon = useCallback(
    (atMs: number) => {
      const live = liveRef.current
      if (!live) return
      if (timer.current) clearTimeout(timer.current)
      dispatch({ type: 'pause', live })
      timer.current = setTimeout(() => seek(atMs), SEEK_DEBOUNCE_MS)
    },
    [seek],
  )

  const pause = useCallback(() => {
    const live = liveRef.current
    if (live) dispatch({ type: 'pause', live })
  }, [])

  const goLive = useCallback(() => {
    cancel()
    dispatch({ type: 'live' })
  }, [cancel])

  useEffect(() => cancel, [cancel])

  return { state, viewed: viewedSnapshot(state, liveSnapshot), pause, live: goLive, seek, seekSoon }
}
