// The /observe page's data: GET /api/observe for the target every POLL_MS while the tab is shown,
// one request at a time. The server shares a sample a second between browsers, so a faster poll
// would only repeat it. A 401 asks for the token through the header's control.

import { useEffect, useState } from 'react'
import type { ObserveSampleView } from '../../lib/observe-protocol.ts'
import { authHeaders, isUnauthorized, refusalMessage, requestToken, useLabToken } from '../lab-token.ts'

export const POLL_MS = 2_000

export interface ObserveState {
  sample: ObserveSampleView | null
  error: string | null
  /** Requests answered so far for this target. */
  answered: number
}

/**
 * Why this server cannot observe (it runs the embedded log), asked once with no target; null when it
 * can, or until it answered.
 */
export function useCannotObserve(): string | null {
  const [why, setWhy] = useState<string | null>(null)
  useEffect(() => {
    const ac = new AbortController()
    fetch('/api/observe', { cache: 'no-store', headers: authHeaders(), signal: ac.signal })
      .then(async (r) => {
        const body = (await r.json().catch(() => ({}))) as { available?: boolean; reason?: string }
        if (r.ok && body.available === false) setWhy(body.reason ?? 'this server cannot observe other applications')
      })
      .catch(() => {})
    return () => ac.abort()
  }, [])
  return why
}

export function useObserve(search: string): ObserveState {
  const { token } = useLabToken()
  const [state, setState] = useState<ObserveState>({ sample: null, error: null, answered: 0 })
  // biome-ignore lint/correctness/useExhaustiveDependencies: token: a token entered restarts the polling with it
  useEffect(() => {
    setState({ sample: null, error: null, answered: 0 })
    if (search === '') return
    let stop = false
    let timer: ReturnType<typeof setTimeout> | null = null
    const tick = async () => {
      if (document.visibilityState === 'visible') {
        try {
          const r = await fetch(`/api/observe?${search}`, { cache: 'no-store', headers: authHeaders() })
          const body = (await r.json().catch(() => ({}))) as { sample?: ObserveSampleView; error?: string }
          if (stop) return
          if (r.ok && body.sample) setState((s) => ({ sample: body.sample!, error: null, answered: s.answered + 1 }))
          else {
            const e = body.error ?? `${r.status} ${r.statusText}`
            const shown = r.status === 401 || isUnauthorized(e) ? refusalMessage(e, 'reads') : e
            if (r.status === 401) requestToken(shown)
            // A refused target keeps no stale sample beside its error.
            setState((s) => ({
              sample: r.status === 400 || r.status === 501 ? null : s.sample,
              error: shown,
              answered: s.answered + 1,
            }))
          }
        } catch (e) {
          if (!stop)
            setState((s) => ({
              ...s,
              error: `the server did not answer: ${e instanceof Error ? e.message : String(e)}`,
            }))
        }
      }
      if (!stop) timer = setTimeout(() => void tick(), POLL_MS)
    }
    void tick()
    return () => {
      stop = true
      if (timer) clearTimeout(timer)
    }
  }, [search, token])
  return state
}
