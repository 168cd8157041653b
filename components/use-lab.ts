// The live lab in a component: the latest snapshot (rendered at most once per animation frame),
// the connection state, and a command sender that resolves with the server's acknowledgement.

import { startTransition, useCallback, useEffect, useRef, useState } from 'react'
import type { CommandName, CommandInput, CommandResult, LabSnapshot } from '../lib/lab-protocol.ts'
import { applyPatch, type SnapshotDelta } from '../lib/live-delta.ts'
import { isUnauthorized, refusalMessage, requestToken } from './lab-token.ts'
import { isLiveView, type LiveView } from '../lib/live-views.ts'
import { closeLabSocket, getLabSocket, noteServerView, openLabSocket, serverView, setLabView } from './socket-client.ts'

/** locked: the server refused the handshake for want of a valid token (EOSCOPE_LOCK_READS). */
export type ConnectionState = 'connecting' | 'live' | 'offline' | 'locked'

export const COMMAND_TIMEOUT_MS = 5000
/** The page shows a new snapshot at most this often (the figures move four times a second). */
export const RENDER_EVERY_MS = 250
/** A refused view change (the server's limit on full snapshots) is asked again after this long. */
const VIEW_RETRY_MS = 1000

export interface UseLab {
  snapshot: LabSnapshot | null
  connection: ConnectionState
  send: <N extends CommandName>(name: N, payload: CommandInput<N>) => Promise<CommandResult>
}

/** The live lab, as `view` draws it (lib/live-views.ts): the server leaves out what the page does not show. */
export function useLab(view: LiveView): UseLab {
  const [snapshot, setSnapshot] = useState<LabSnapshot | null>(null)
  /** Hands a snapshot from outside the socket's events (a view change's answer) to the paint schedule. */
  const showRef = useRef<(s: LabSnapshot) => void>(() => {})
  setLabView(view)
  const [connection, setConnection] = useState<ConnectionState>('connecting')
  /** Told when the snapshot last handed to React is on screen (the next one may follow). */
  const committed = useRef<() => void>(() => {})
  useEffect(() => {
    if (snapshot) committed.current()
  }, [snapshot])

  useEffect(() => {
    const socket = getLabSocket()
    let latest: LabSnapshot | null = null
    let frame = 0
    let timer: ReturnType<typeof setTimeout> | null = null
    let shownAt = Number.NEGATIVE_INFINITY
    let resyncing = false
    /** The snapshot handed to React and not yet on screen, and the last one on screen. */
    let rendering: LabSnapshot | null = null
    let onScreen: LabSnapshot | null = null

    // The newest snapshot, on the next animation frame, and at most every RENDER_EVERY_MS: the
    // server sends about ten a second, and every page redrawn ten times a second kept the main
    // thread busy (long tasks a reader feels as a sluggish page). As a transition, React renders
    // it in slices of a few milliseconds and yields between them, so a page full of figures never
    // holds the main thread for long and a click or a key is handled at once. One at a time: the
    // next waits until this one is on screen, so a slow render is never restarted by a newer one.
    const paint = () => {
      frame = requestAnimationFrame(() => {
        frame = 0
        const next = latest
        // The same object again would change no state, and no commit would tell it is on screen.
        if (next === null || next === onScreen) return
        shownAt = performance.now()
        rendering = next
        startTransition(() => setSnapshot(next))
      })
    }
    committed.current = () => {
      if (rendering === null) return
      onScreen = rendering
      rendering = null
      if (latest && latest !== onScreen) show(latest)
    }
    const show = (s: LabSnapshot) => {
      latest = s
      if (frame || timer || rendering) return
      const wait = shownAt + RENDER_EVERY_MS - performance.now()
      if (wait <= 0) paint()
      else
        timer = setTimeout(() => {
          timer = null
          paint()
        }, wait)
    }
    const resync = () => {
      if (resyncing) return
      resyncing = true
      socket.timeout(COMMAND_TIMEOUT_MS).emit('resync', (err, s) => {
        resyncing = false
        if (!err && s) show(s)
      })
    }

    showRef.current = show
    const onSnapshot = (s: LabSnapshot) => show(s)
    const onDelta = (d: SnapshotDelta) => {
      if (latest && latest.seq === d.base) show(applyPatch(latest, d.patch))
      else if (latest?.seq !== d.seq) resync()
    }
    const onConnect = () => setConnection('live')
    const onDisconnect = () => setConnection('offline')
    const onConnectError = (err: Error) => {
      // A refused handshake is not retried by socket.io: ask for the token instead of waiting.
      if (isUnauthorized(err.message)) {
        setConnection('locked')
        requestToken(refusalMessage(err.message, 'reads'))
      } else setConnection('offline')
    }

    socket.on('snapshot', onSnapshot)
    socket.on('delta', onDelta)
    socket.on('connect', onConnect)
    socket.on('disconnect', onDisconnect)
    socket.on('connect_error', onConnectError)
    openLabSocket()
    return () => {
      socket.off('snapshot', onSnapshot)
      socket.off('delta', onDelta)
      socket.off('connect', onConnect)
      socket.off('disconnect', onDisconnect)
      socket.off('connect_error', onConnectError)
      if (frame) cancelAnimationFrame(frame)
      if (timer) clearTimeout(timer)
      closeLabSocket()
    }
  }, [])

  const showFromOutside = useCallback((s: LabSnapshot) => showRef.current(s), [])
  useLiveView(view, showFromOutside)

  const send = useCallback(async <N extends CommandName>(name: N, payload: CommandInput<N>): Promise<CommandResult> => {
    const socket = getLabSocket()
    if (!socket.connected) return { ok: false, error: 'not connected to the lab' }
    try {
      const r = await socket.timeout(COMMAND_TIMEOUT_MS).emitWithAck('command', name, payload)
      if (!r.ok && isUnauthorized(r.error)) requestToken(refusalMessage(r.error, 'command'))
      return r
    } catch {
      return { ok: false, error: `no answer from the lab within ${COMMAND_TIMEOUT_MS / 1000} s` }
    }
  }, [])

  return { snapshot, connection, send }
}

/**
 * A page of another view: the socket is told, and its answer is that view's snapshot (or it follows
 * once what was sent before is taken). Before the socket connects, its handshake says it.
 */
function useLiveView(view: LiveView, show: (s: LabSnapshot) => void): void {
  useEffect(() => {
    const socket = getLabSocket()
    let retry: ReturnType<typeof setTimeout> | null = null
    let done = false
    const ask = () => {
      if (done || !socket.connected) return
      socket.timeout(COMMAND_TIMEOUT_MS).emit('view', view, (err, r) => {
        if (done) return
        if (!err && isLiveView(r.view)) noteServerView(r.view)
        if (!err && r.snapshot) show(r.snapshot)
        if (err || r.view !== view) retry = setTimeout(ask, VIEW_RETRY_MS)
      })
    }
    // The server holds another view for the socket (its handshake or last answer named it): tell it.
    const onConnect = () => {
      if (serverView() !== view) ask()
    }
    if (serverView() !== view) ask()
    socket.on('connect', onConnect)
    return () => {
      done = true
      if (retry) clearTimeout(retry)
      socket.off('connect', onConnect)
    }
  }, [view, show])
}
