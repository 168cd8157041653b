// socket.io on the custom server: pushes the lab's snapshots to every browser (coalesced, volatile,
// as deltas against the previous broadcast) and runs commands with acknowledgements.

import type { Server as HttpServer } from 'node:http'
import { Server, type Socket } from 'socket.io'
import type { CommandResult, LabSnapshot } from '../../lib/lab-protocol.ts'
import type { LabController } from '../lab/lab-controller.ts'
import { diff, wireCopy, type LiveClientToServerEvents, type LiveServerToClientEvents } from './live-delta.ts'
import { isSameOrigin } from './origin.ts'

/** At most this many pushes a second reach a browser, whatever the lab's rate (the guard is 15). */
export const MAX_EMITS_PER_SEC = 15
/** The default push rate: each push coalesces everything that changed since the previous one. */
export const DEFAULT_EMITS_PER_SEC = 10

export interface LiveSocketOptions {
  lab: LabController
  /** Minimum milliseconds between two pushes (default 1000 / DEFAULT_EMITS_PER_SEC; keep it at or above 1000 / MAX_EMITS_PER_SEC). */
  minIntervalMs?: number
  log?: (msg: string) => void
}

export interface LiveSocket {
  io: Server<LiveClientToServerEvents, LiveServerToClientEvents>
  close(): Promise<void>
}

type LiveSocketConn = Socket<LiveClientToServerEvents, LiveServerToClientEvents>

export function attachLiveSocket(httpServer: HttpServer, { lab, minIntervalMs = 1000 / DEFAULT_EMITS_PER_SEC, log = () => {} }: LiveSocketOptions): LiveSocket {
  const io = new Server<LiveClientToServerEvents, LiveServerToClientEvents>(httpServer, {
    path: '/socket.io',
    serveClient: false,
    // Only the page's own origin may connect (no CORS headers are ever sent).
    allowRequest: (req, callback) => callback(null, isSameOrigin(req)),
    maxHttpBufferSize: 16 * 1024,
    perMessageDeflate: { threshold: 1024 },
  })

  // The last snapshot every connected browser has been offered: deltas are computed against it.
  // A private copy: the lab may reuse and update the objects of an earlier snapshot in place.
  let broadcast: LabSnapshot = wireCopy(lab.snapshot())
  let pending: LabSnapshot | null = null
  let lastEmitAt = 0
  let timer: NodeJS.Timeout | null = null

  const flush = () => {
    timer = null
    if (!pending) return
    const next = wireCopy(pending)
    pending = null
    lastEmitAt = performance.now()
    const patch = diff(broadcast, next)
    const base = broadcast.seq
    broadcast = next
    if (!patch) return
    io.volatile.emit('delta', { base, seq: next.seq, patch })
  }

  const unsubscribe = lab.onSnapshot((s) => {
    pending = s
    if (timer) return
    const wait = Math.max(0, lastEmitAt + minIntervalMs - performance.now())
    timer = setTimeout(flush, wait)
  })

  io.on('connection', (socket: LiveSocketConn) => {
    // A new or reconnecting browser catches up from the snapshot the next delta builds on.
    socket.emit('snapshot', broadcast)

    socket.on('resync', (ack) => {
      if (typeof ack === 'function') ack(broadcast)
    })

    socket.on('command', async (name, payload, ack) => {
      if (typeof ack !== 'function') return
      let result: CommandResult
      try {
        result = await lab.execute(name, payload)
      } catch (err) {
        // execute() promises never to throw; if it does, the browser gets no stack trace.
        log(`command ${String(name).slice(0, 40)} failed: ${err instanceof Error ? err.message : String(err)}`)
        result = { ok: false, error: 'internal error' }
      }
      ack(result)
    })
  })

  return {
    io,
    async close() {
      unsubscribe()
      if (timer) clearTimeout(timer)
      await new Promise<void>((resolve) => io.close(() => resolve()))
    },
  }
}
