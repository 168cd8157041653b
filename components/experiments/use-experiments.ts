// The /experiments page's state: the current experiment (GET /api/experiments/current every 500 ms
// while one runs), the stored list, the shown and the overlaid experiment, and the requests that
// start, cancel and choose them. A 401 asks for the token through the header's control.

import { useCallback, useEffect, useRef, useState } from 'react'
import type { ExperimentRecord, ExperimentSummary, SweepRequest } from '../../lib/experiment-protocol.ts'
import { authHeaders, isUnauthorized, refusalMessage, requestToken, useLabToken } from '../lab-token.ts'

const POLL_MS = 500

export interface ListResponse {
  experiments: ExperimentSummary[]
  running: boolean
  backends: string[]
  /** Why a backend cannot be chosen here (e.g. kafka without KAFKA_BROKERS). */
  unavailableBackends?: Record<string, string>
}

/** The error of a failed request; a 401 also asks for the token (the header's control opens). */
function refused(r: Response, error: string | undefined, what: 'command' | 'reads'): string {
  const e = error ?? `${r.status} ${r.statusText}`
  if (r.status !== 401 && !isUnauthorized(e)) return e
  const why = refusalMessage(e, what)
  requestToken(why)
  return why
}

async function getJson<T>(url: string): Promise<T> {
  const r = await fetch(url, { cache: 'no-store', headers: authHeaders() })
  if (!r.ok)
    throw new Error(refused(r, ((await r.json().catch(() => null)) as { error?: string } | null)?.error, 'reads'))
  return (await r.json()) as T
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e))

/** POST /api/experiments: the started experiment, or why it was refused. */
async function postSweep(request: SweepRequest): Promise<{ experiment: ExperimentRecord } | { error: string }> {
  const r = await fetch('/api/experiments', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authHeaders() },
    body: JSON.stringify(request),
  })
  const body = (await r.json().catch(() => ({}))) as { experiment?: ExperimentRecord; error?: string }
  return r.ok && body.experiment ? { experiment: body.experiment } : { error: refused(r, body.error, 'command') }
}

/** POST /api/experiments/cancel: null, or why it was refused. */
async function postCancel(): Promise<string | null> {
  const r = await fetch('/api/experiments/cancel', { method: 'POST', headers: authHeaders() })
  return r.ok ? null : refused(r, ((await r.json().catch(() => ({}))) as { error?: string }).error, 'command')
}

/**
 * Hands the current experiment to `take`: every 500 ms while one runs, once at first load;
 * re-armed when a run starts (running flips to true after a POST).
 */
function usePolledCurrent(
  { running, firstLoad }: { running: boolean; firstLoad: boolean },
  take: (experiment: ExperimentRecord | null) => void,
  fail: (message: string) => void,
): void {
  /* biome-ignore lint/correctness/useExhaustiveDependencies: re-armed by running alone: take and fail are new
     functions each render, and firstLoad counts at the first run only; with them the polling would restart on
     every render */
  useEffect(() => {
    let stop = false
    let timer: ReturnType<typeof setTimeout> | null = null
    const tick = async () => {
      try {
        const { experiment } = await getJson<{ experiment: ExperimentRecord | null }>('/api/experiments/current')
        if (stop) return
        take(experiment)
        if (experiment?.status === 'running') timer = setTimeout(tick, POLL_MS)
      } catch (e) {
        if (!stop) {
          fail(messageOf(e))
          timer = setTimeout(tick, POLL_MS * 4)
        }
      }
    }
    if (running || firstLoad) void tick()
    return () => {
      stop = true
      if (timer) clearTimeout(timer)
    }
  }, [running])
}

/**
 * What the page shows first: a permalink's experiment (/experiments?id=…), else the newest stored
 * one, once nothing runs or is chosen. One load at a time (the newest must not overtake the linked
 * one), and never over a choice made meanwhile.
 */
function useFirstShown(
  { list, shown, running }: { list: ListResponse; shown: ExperimentRecord | null; running: boolean },
  setShown: (f: (cur: ExperimentRecord | null) => ExperimentRecord | null) => void,
  setError: (e: string) => void,
): void {
  const linked = useRef<string | null>(
    typeof window === 'undefined' ? null : new URLSearchParams(window.location.search).get('id'),
  )
  const loading = useRef(false)
  const [linkFailed, setLinkFailed] = useState(false)
  // biome-ignore lint/correctness/useExhaustiveDependencies: linkFailed: again after a failed link, for the newest
  useEffect(() => {
    if (shown || running || loading.current) return
    const id = linked.current ?? list.experiments[0]?.id
    if (id === undefined) return
    const fromLink = linked.current !== null
    linked.current = null
    loading.current = true
    void getJson<ExperimentRecord>(`/api/experiments/${encodeURIComponent(id)}`)
      .then(
        (r) => setShown((cur) => cur ?? r),
        (e: unknown) => {
          if (!fromLink) return
          setError(`the linked experiment: ${messageOf(e)}`)
          setLinkFailed(true)
        },
      )
      .finally(() => {
        loading.current = false
      })
  }, [list, shown, running, linkFailed, setShown, setError])
}

/**
 * The experiments the page shows: the current one (polled while it runs), the stored list, the shown one and
 * the overlays, with the page's actions.
 */
export function useExperiments() {
  const [current, setCurrent] = useState<ExperimentRecord | null>(null)
  const [list, setList] = useState<ListResponse>({ experiments: [], running: false, backends: ['embedded'] })
  const [shown, setShown] = useState<ExperimentRecord | null>(null)
  const [overlays, setOverlays] = useState<ExperimentRecord[]>([])
  const [error, setError] = useState<string | null>(null)
  const running = current?.status === 'running'
  const wasRunning = useRef(false)
  const { token } = useLabToken()

  const refreshList = useCallback(async () => {
    try {
      setList(await getJson<ListResponse>('/api/experiments'))
    } catch (e) {
      setError(messageOf(e))
    }
  }, [])

  usePolledCurrent(
    { running, firstLoad: current === null },
    (experiment) => {
      setCurrent(experiment)
      const isRunning = experiment?.status === 'running'
      if (experiment && (isRunning || wasRunning.current)) setShown(experiment)
      if (wasRunning.current && !isRunning) void refreshList()
      wasRunning.current = isRunning
    },
    setError,
  )

  // Again when the token changes: reads may be locked.
  // biome-ignore lint/correctness/useExhaustiveDependencies: token: again when the token changes
  useEffect(() => {
    setError(null)
    void refreshList()
  }, [refreshList, token])

  useFirstShown({ list, shown, running }, setShown, setError)

  const start = async (request: SweepRequest) => {
    setError(null)
    const r = await postSweep(request)
    if ('error' in r) {
      setError(r.error)
      return
    }
    wasRunning.current = true
    setCurrent(r.experiment)
    setShown(r.experiment)
  }

  const cancel = async () => {
    const why = await postCancel()
    if (why) setError(why)
  }

  /** Shows an experiment, or adds it to the overlays (drawn over the shown one). */
  const choose = async (id: string, as: 'shown' | 'overlay') => {
    try {
      const r = await getJson<ExperimentRecord>(`/api/experiments/${encodeURIComponent(id)}`)
      if (as === 'shown') setShown(r)
      else setOverlays((xs) => [...xs.filter((x) => x.id !== r.id), r])
    } catch (e) {
      setError(messageOf(e))
    }
  }

  return {
    current,
    list,
    shown,
    overlays,
    error,
    running,
    start,
    cancel,
    choose,
    removeOverlay: (id: string) => setOverlays((xs) => xs.filter((x) => x.id !== id)),
  }
}
