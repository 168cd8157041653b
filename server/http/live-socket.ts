// socket.io on the custom server: pushes the lab's snapshots to every browser (coalesced, volatile,
// as deltas against the previous broadcast) and runs commands with acknowledgements.

import type { Server as HttpServer } from 'node:http'
import { Server, type Socket } from 'socket.io'
import type { CommandResult, LabSnapshot } from '../../lib/lab-protocol.ts'
import type { LabController } from '../lab/lab-controller.ts'
import { diff, wireCopy, type LiveClientToServerEvents, type LiveServerToClientEvents } from '../../lib/live-delta.ts'
import { isSameOrigin } from './origin.ts'
import type { AccessGate } from './access.ts'

/** At most this many pushes a second reach a browser, whatever the lab's rate (the guard is 15). */
export const MAX_EMITS_PER_SEC = 15
/** The default push rate: each push coalesces everything that changed since the previous one. */
export const DEFAULT_EMITS_PER_SEC = 10

export interface LiveSocketOptions {
  lab: LabController
  /** Minimum milliseconds between two pushes (default 1000 / DEFAULT_EMITS_PER_SEC; keep it at or above 1000 / MAX_EMITS_PER_SEC). */
  minIntervalMs?: number
  log?: (msg: string) => void
  /** Token and rate checks; without one every connection may read and control (tests of the live layer). */
  gate?: AccessGate
  /** Told about each command run and each refusal (for the log and the metrics). */
  hooks?: LiveSocketHooks
}

export interface LiveSocketHooks {
  command?(e: { name: string; ok: boolean; error?: string; client: string }): void
  rejected?(e: { reason: 'cross_origin' | 'unauthorized' | 'rate_limited' | 'bad_input'; error: string; client: string }): void
  /** An unexpected error (its message only ever reaches a client as 'internal error'). */
  failed?(e: { where: string; err: unknown; client: string }): void
}

/** The events a client may send; anything else gets { ok: false, error } when it asks for an acknowledgement. */
const KNOWN_EVENTS = new Set(['command', 'resync'])

export interface LiveSocket {
  io: Server<LiveClientToServerEvents, LiveServerToClientEvents>
  close(): Promise<void>
}

type LiveSocketConn = Socket<LiveClientToServerEvents, LiveServerToClientEvents>

export function attachLiveSocket(httpServer: HttpServer, { lab, minIntervalMs = 1000 / DEFAULT_EMITS_PER_SEC, log = () => {}, gate, hooks = {} }: LiveSocketOptions): LiveSocket {
  const io = new Server<LiveClientToServerEvents, LiveServerToClientEvents>(httpServer, {
    path: '/socket.io',
    serveClient: false,
    // Only the page's own origin may connect (no CORS headers are ever sent).
    allowRequest: (req, callback) => {
      const same = isSameOrigin(req)
      if (!same) hooks.rejected?.({ reason: 'cross_origin', error: `socket from origin ${String(req.headers.origin).slice(0, 100)} refused`, client: req.socket.remoteAddress ?? 'unknown' })
      callback(null, same)
    },
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

  // With EOSCOPE_LOCK_READS, a socket without the token does not connect; otherwise it connects,
  // and a valid handshake token (auth: { token }) authorizes its commands.
  io.use((socket, next) => {
    const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token
    const valid = gate ? gate.authorized(token) : true
    if (gate?.readsNeedToken && !valid) {
      hooks.rejected?.({ reason: 'unauthorized', error: 'socket without a valid token refused (reads are locked)', client: socket.handshake.address })
      next(new Error(token === undefined ? 'unauthorized: connect with auth: { token }' : 'unauthorized: the token is not valid'))
      return
    }
    ;(socket.data as { authorized?: boolean }).authorized = valid
    next()
  })

  io.on('connection', (socket: LiveSocketConn) => {
    const client = socket.handshake.address
    // A new or reconnecting browser catches up from the snapshot the next delta builds on.
    socket.emit('snapshot', broadcast)

    socket.on('resync', (ack) => {
      if (typeof ack === 'function') ack(broadcast)
    })

    // command(name, payload[, { token }], ack): every argument is untrusted.
    const raw = socket as unknown as Socket
    raw.on('command', (...args: unknown[]) => {
      const ack = typeof args[args.length - 1] === 'function' ? (args.pop() as (r: CommandResult) => void) : null
      void runCommand(client, (socket.data as { authorized?: boolean }).authorized === true, args).then((result) => {
        try {
          ack?.(result)
        } catch (err) {
          hooks.failed?.({ where: 'command acknowledgement', err, client })
        }
      })
    })
    raw.onAny((event: unknown, ...args: unknown[]) => {
      if (typeof event === 'string' && KNOWN_EVENTS.has(event)) return
      const error = `unknown event ${JSON.stringify(String(event).slice(0, 40))}; send command(name, payload, ack)`
      hooks.rejected?.({ reason: 'bad_input', error, client })
      const ack = args[args.length - 1]
      if (typeof ack === 'function') (ack as (r: CommandResult) => void)({ ok: false, error })
    })
  })

  async function runCommand(client: string, socketAuthorized: boolean, args: unknown[]): Promise<CommandResult> {
    const [name, payload, meta] = args
    const label = typeof name === 'string' ? name.slice(0, 40) : `<${name === null ? 'null' : typeof name}>`
    const refuse = (reason: 'unauthorized' | 'rate_limited' | 'bad_input', error: string): CommandResult => {
      hooks.rejected?.({ reason, error, client })
      return { ok: false, error }
    }
    if (gate && !gate.allowControl(client)) return refuse('rate_limited', 'rate limited')
    if (gate?.controlNeedsToken && !socketAuthorized) {
      const token = typeof meta === 'object' && meta !== null ? (meta as { token?: unknown }).token : undefined
      if (!gate.authorized(token)) return refuse('unauthorized', token === undefined ? 'unauthorized: connect with auth: { token } or send command(name, payload, { token }, ack)' : 'unauthorized: the token is not valid')
    }
    if (args.length > 3) return refuse('bad_input', 'command takes (name, payload[, { token }], ack)')
    let result: CommandResult
    try {
      result = await lab.execute(name as string, payload)
    } catch (err) {
      // execute() promises never to throw; if it does, the browser gets no stack trace.
      log(`command ${label} failed: ${err instanceof Error ? err.message : String(err)}`)
      hooks.failed?.({ where: `command ${label}`, err, client })
      result = { ok: false, error: 'internal error' }
    }
    hooks.command?.({ name: label, ok: result.ok, ...(result.ok ? {} : { error: result.error }), client })
    return result
  }

  return {
    io,
    async close() {
      unsubscribe()
      if (timer) clearTimeout(timer)
      await new Promise<void>((resolve) => io.close(() => resolve()))
    },
  }
}
