// The live lab in a component: the latest snapshot (rendered at most once per animation frame),
// the connection state, and a command sender that resolves with the server's acknowledgement.

import { useCallback, useEffect, useState } from 'react'
import type { CommandName, CommandInput, CommandResult, LabSnapshot } from '../lib/lab-protocol.ts'
import { applyPatch, type SnapshotDelta } from '../lib/live-delta.ts'
import { isUnauthorized, refusalMessage, requestToken } from './lab-token.ts'
import { closeLabSocket, getLabSocket, openLabSocket } from './socket-client.ts'

/** locked: the server refused the handshake for want of a valid token (EOSCOPE_LOCK_READS). */
export type ConnectionState = 'connecting' | 'live' | 'offline' | 'locked'

export const COMMAND_TIMEOUT_MS = 5000
/** The page shows a new snapshot at most this often (the figures move four times a second). */
export const RENDER_EVERY_MS = 250

export interface UseLab {
  snapshot: LabSnapshot | null
  connection: ConnectionState
  send: <N extends CommandName>(name: N, payload: CommandInput<N>) => Promise<CommandResult>
}

export function useLab(): UseLab {
  const [snapshot, setSnapshot] = useState<LabSnapshot | null>(null)
  const [connection, setConnection] = useState<ConnectionState>('connecting')

  useEffect(() => {
    const socket = getLabSocket()
    let latest: LabSnapshot | null = null
    let frame = 0
    let timer: ReturnType<typeof setTimeout> | null = null
    let shownAt = Number.NEGATIVE_INFINITY
    let resyncing = false

    // The newest snapshot, on the next animation frame, and at most every RENDER_EVERY_MS: the
    // server sends about ten a second, and every page redrawn ten times a second kept the main
    // thread busy (long tasks a reader feels as a sluggish page).
    const paint = () => {
      frame = requestAnimationFrame(() => {
        frame = 0
        shownAt = performance.now()
        setSnapshot(latest)
      })
    }
    const show = (s: LabSnapshot) => {
      latest = s
      if (frame || timer) return
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
