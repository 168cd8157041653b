// socket.io on the custom server: pushes the lab's snapshots to every browser (coalesced, as deltas
// against the previous broadcast, built once per push and sent as the same bytes to every client)
// and runs commands with acknowledgements.
//
// Latest wins: a client that has not taken what it was last sent (its session's queue is not empty)
// is given nothing more; it falls behind, and once its queue has drained it gets the newest full
// snapshot, never a backlog. Every request of a session (the handshake, each later poll, the
// upgrade) must name an allowed Host, and the number of sessions and what each may have queued are
// bounded (session-limits.ts).

import { STATUS_CODES, ServerResponse, type IncomingMessage, type Server as HttpServer } from 'node:http'
import { Server, type Socket } from 'socket.io'
import { COMMANDS, type CommandResult, type LabSnapshot } from '../../lib/lab-protocol.ts'
import type { LabController } from '../lab/lab-controller.ts'
import { diff, wireCopy, type LiveClientToServerEvents, type LiveServerToClientEvents } from '../../lib/live-delta.ts'
import { isLiveView, LIVE_VIEWS, type LiveView, patchFor, snapshotFor } from '../../lib/live-views.ts'
import { isSameOrigin } from './origin.ts'
import { RateLimiter, type AccessGate, type RateLimit, type Rejection } from './access.ts'
import { nullPayloadError } from './json-body.ts'
import { API_CSP } from './security-headers.ts'
import {
  DEFAULT_SESSION_LIMITS,
  SessionGuard,
  type GuardedSession,
  type SessionLimits,
  type SessionRefusal,
} from './session-limits.ts'

/** At most this many pushes a second reach a browser, whatever the lab's rate (the guard is 15). */
export const MAX_EMITS_PER_SEC = 15
/** The default push rate: each push coalesces everything that changed since the previous one. */
export const DEFAULT_EMITS_PER_SEC = 10
/**
 * How often the heavy, fast-churning parts of a snapshot go out (ms): a deep view's 120 log cells
 * or the transaction list can be rewritten whole between two pushes at a high input rate (about
 * 19 KB per push for the partition log at 10,000 records/s), where the tiles, tasks and workers
 * change by a few bytes. They follow at this pace; everything else at every push.
 */
export const SLOW_PARTS_EVERY_MS: Readonly<Partial<Record<keyof LabSnapshot, number>>> = {
  partitionLog: 2_000,
  partitions: 2_000,
  transactionsView: 2_000,
  group: 2_000,
  producers: 2_000,
  duplicateLedger: 2_000,
  traces: 1_000,
  transactions: 1_000,
  tasks: 500,
}
/**
 * A slow part keeps what was last sent (the same object, so the delta has no patch for it) until
 * its pace is due; then it goes out and its time is noted in `sentAt`.
 */
export function holdSlowParts(
  next: LabSnapshot,
  sent: LabSnapshot,
  slowParts: Readonly<Partial<Record<keyof LabSnapshot, number>>>,
  sentAt: Map<string, number>,
  nowMs: number,
): void {
  for (const [key, everyMs] of Object.entries(slowParts)) {
    if (nowMs - (sentAt.get(key) ?? -Infinity) >= everyMs!) {
      sentAt.set(key, nowMs)
      continue
    }
    const held = (sent as unknown as Record<string, unknown>)[key]
    // A part the last push did not have stays absent: an own key holding undefined would go out as null.
    if (held === undefined) delete (next as unknown as Record<string, unknown>)[key]
    else (next as unknown as Record<string, unknown>)[key] = held
  }
}

/** Full snapshots a socket may ask for with `resync` (each is tens of KB); beyond, the ack is null. */
export const RESYNC_RATE: RateLimit = { perSec: 2, burst: 5 }

const TOKEN_REQUIRED = 'unauthorized: token required: connect with auth: { token }'
const TOKEN_NOT_VALID = 'unauthorized: the token is not valid'

/** What the handshake's auth.token was: absent, the token (or any, when none is set), or wrong. */
type HandshakeToken = 'none' | 'valid' | 'invalid'

export interface LiveSocketOptions {
  lab: LabController
  /**
   * Minimum milliseconds between two pushes (default 1000 / DEFAULT_EMITS_PER_SEC;
   * keep it at or above 1000 / MAX_EMITS_PER_SEC).
   */
  minIntervalMs?: number
  /** The pace of the slow parts (SLOW_PARTS_EVERY_MS by default; {} sends every part at every push). */
  slowParts?: Readonly<Partial<Record<keyof LabSnapshot, number>>>
  log?: (msg: string) => void
  /** Token and rate checks; without one every connection may read and control (tests of the live layer). */
  gate?: AccessGate
  /** Told about each command run and each refusal (for the log and the metrics). */
  hooks?: LiveSocketHooks
  /** Sessions at once (in total, per client) and the bytes one may have queued; DEFAULT_SESSION_LIMITS by default. */
  sessions?: SessionLimits
}

export interface LiveSocketHooks {
  command?(e: { name: string; ok: boolean; error?: string; client: string }): void
  rejected?(e: {
    reason:
      | 'cross_origin'
      | 'unauthorized'
      | 'rate_limited'
      | 'bad_input'
      | 'misdirected'
      | 'too_many_sessions'
      | 'slow_client'
    error: string
    client: string
  }): void
  /** An unexpected error (its message only ever reaches a client as 'internal error'). */
  failed?(e: { where: string; err: unknown; client: string }): void
}

/** The events a client may send; anything else gets { ok: false, error } when it asks for an acknowledgement. */
const KNOWN_EVENTS = new Set(['command', 'resync', 'view'])

export interface LiveSocket {
  io: Server<LiveClientToServerEvents, LiveServerToClientEvents>
  /** The live sessions, counted per client and in total. */
  sessions: SessionGuard
  close(): Promise<void>
}

type LiveSocketConn = Socket<LiveClientToServerEvents, LiveServerToClientEvents>
type LiveIo = Server<LiveClientToServerEvents, LiveServerToClientEvents>
type Refusal = { reason: 'unauthorized' | 'rate_limited'; error: string }

/**
 * Answers a socket.io request the server refuses, as JSON with the reason: a plain HTTP response, or on the raw socket
 * of a WebSocket upgrade (engine.io hands its middlewares a stand-in response there).
 */
function refuseEngineRequest(res: unknown, refusal: Rejection | SessionRefusal): void {
  const body = JSON.stringify({ error: refusal.error })
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'content-security-policy': API_CSP,
    ...(refusal.retryAfterSec ? { 'retry-after': String(refusal.retryAfterSec) } : {}),
  }
  if (res instanceof ServerResponse) {
    if (res.headersSent) res.destroy()
    else res.writeHead(refusal.status, headers).end(body)
    return
  }
  const socket = (res as { socket?: import('node:net').Socket }).socket
  if (!socket || socket.destroyed) return
  const head = Object.entries({ ...headers, connection: 'close' })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')
  socket.end(`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n${head}\r\n${body}`)
}

/** The session a socket.io request belongs to, or null for a handshake. */
function sessionOf(req: IncomingMessage): string | null {
  try {
    return new URL(req.url ?? '/', 'http://localhost').searchParams.get('sid')
  } catch {
    return null
  }
}

/**
 * Every request of a session (its handshake, each later poll and post, its upgrade) must name an allowed Host; a
 * handshake must also fit the session limits. Counts the sessions and bounds what each may have queued.
 */
function guardSessions(io: LiveIo, gate: AccessGate | undefined, guard: SessionGuard, hooks: LiveSocketHooks): void {
  io.engine.use((req: IncomingMessage, res: unknown, next: (err?: unknown) => void) => {
    const client = req.socket.remoteAddress ?? 'unknown'
    const misdirected = gate?.checkHost(req) ?? null
    const refusal = misdirected ?? (sessionOf(req) === null ? guard.admit(client) : null)
    if (!refusal) return next()
    hooks.rejected?.({ reason: refusal.reason as 'misdirected' | 'too_many_sessions', error: refusal.error, client })
    refuseEngineRequest(res, refusal)
  })
  io.engine.on('connection', (session: GuardedSession) => {
    guard.track(session, (queued) =>
      hooks.rejected?.({
        reason: 'slow_client',
        error:
          `session closed: ${queued} bytes queued for it, ` +
          `above ${guard.limits.maxBufferedBytes} (EOSCOPE_SESSION_BUFFER_BYTES)`,
        client: session.remoteAddress,
      }),
    )
  })
}

/** socket.io on the server, with the origin check and the handshake's token check (Host: guardSessions). */
function createIo(httpServer: HttpServer, gate: AccessGate | undefined, hooks: LiveSocketHooks): LiveIo {
  const io: LiveIo = new Server(httpServer, {
    path: '/socket.io',
    serveClient: false,
    // Only the page's own origin may connect (no CORS headers are ever sent). A refused handshake
    // gets 403 with the reason.
    allowRequest: (req, callback) => {
      const client = req.socket.remoteAddress ?? 'unknown'
      const same = isSameOrigin(req)
      if (!same)
        hooks.rejected?.({
          reason: 'cross_origin',
          error: `socket from origin ${String(req.headers.origin).slice(0, 100)} refused`,
          client,
        })
      callback(same ? null : 'cross-origin sockets are refused', same)
    },
    maxHttpBufferSize: 16 * 1024,
    // No per-connection compression: a broadcast is then encoded once, as one WebSocket frame, and
    // written as the same bytes to every browser (socket.io's adapter precomputes the frame only
    // without deflate). Compressing each delta again per client cost CPU in proportion to the class.
    perMessageDeflate: false,
  })

  // With EOSCOPE_LOCK_READS, a socket without the token does not connect; otherwise it connects,
  // and a valid handshake token (auth: { token }) authorizes its commands.
  io.use((socket, next) => {
    const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token
    const state: HandshakeToken = token === undefined ? 'none' : !gate || gate.authorized(token) ? 'valid' : 'invalid'
    if (gate?.readsNeedToken && state !== 'valid') {
      hooks.rejected?.({
        reason: 'unauthorized',
        error: 'socket without a valid token refused (reads are locked)',
        client: socket.handshake.address,
      })
      next(new Error(state === 'none' ? TOKEN_REQUIRED : TOKEN_NOT_VALID))
      return
    }
    ;(socket.data as { token?: HandshakeToken }).token = state
    // The page's view (lib/live-views.ts); anything else, or none (another client), is sent everything.
    const view = (socket.handshake.auth as { view?: unknown } | undefined)?.view
    ;(socket.data as { view?: LiveView }).view = isLiveView(view) ? view : 'all'
    next()
  })
  return io
}

/** The room of the sockets that missed a push: the newest full snapshot goes to each once its queue has drained. */
export const BEHIND = 'eoscope:behind'

/** The room of a view's sockets (lib/live-views.ts): each socket is in exactly one. */
const roomOf = (view: LiveView) => `eoscope:view:${view}`
const viewOfSocket = (socket: LiveSocketConn): LiveView => (socket.data as { view?: LiveView }).view ?? 'all'
function viewsInUse(io: LiveIo): LiveView[] {
  return LIVE_VIEWS.filter((v) => (io.of('/').adapter.rooms.get(roomOf(v))?.size ?? 0) > 0)
}
/** Puts a socket in a view's room (and out of its previous one). */
function enterView(socket: LiveSocketConn, view: LiveView): void {
  const data = socket.data as { view?: LiveView }
  if (data.view) socket.leave(roomOf(data.view))
  data.view = view
  socket.join(roomOf(view))
}

/** Packets queued for a socket's session and not yet handed to its transport. */
export function queuedPackets(socket: LiveSocketConn): number {
  return (socket.conn as unknown as { writeBuffer?: unknown[] }).writeBuffer?.length ?? 0
}

/**
 * Whether a socket has taken what it was sent: nothing queued (its transport may still be writing the last flush). A
 * polling client with no request pending, or a WebSocket that stopped reading, has something queued.
 */
const caughtUp = (socket: LiveSocketConn) => queuedPackets(socket) === 0

/**
 * Pushes the lab's snapshots to every socket: coalesced to one push per interval, as a delta
 * against the previous push, computed once. `current` is what every browser has been offered.
 * Latest wins: a socket that has not taken what it was sent gets no delta (it is put in BEHIND),
 * and a socket behind whose queue has drained gets the newest snapshot, encoded once for all such.
 */
function startBroadcast(
  lab: LabController,
  io: LiveIo,
  minIntervalMs: number,
  slowParts: Readonly<Partial<Record<keyof LabSnapshot, number>>>,
): { current(): LabSnapshot; stop(): void } {
  // A private copy: the lab may reuse and update the objects of an earlier snapshot in place.
  let broadcast: LabSnapshot = wireCopy(lab.snapshot())
  let pending: LabSnapshot | null = null
  let lastEmitAt = 0
  let timer: NodeJS.Timeout | null = null

  const slowSentAt = new Map<string, number>()
  const flush = () => {
    timer = null
    if (!pending) return
    const next = wireCopy(pending)
    pending = null
    lastEmitAt = performance.now()
    holdSlowParts(next, broadcast, slowParts, slowSentAt, lastEmitAt)
    const patch = diff(broadcast, next)
    const base = broadcast.seq
    broadcast = next
    const sockets = io.of('/').sockets
    for (const socket of sockets.values()) if (!caughtUp(socket)) socket.join(BEHIND)
    // Not volatile: every socket outside BEHIND takes this delta (queued behind at most the flush it is writing).
    // Each view's sockets get the patch without the parts their page does not draw, encoded once per view.
    for (const view of viewsInUse(io))
      if (patch)
        io.to(roomOf(view))
          .except(BEHIND)
          .emit('delta', { base, seq: next.seq, patch: patchFor(patch, view) })
    const ready = new Map<LiveView, string[]>()
    for (const id of io.of('/').adapter.rooms.get(BEHIND) ?? []) {
      const socket = sockets.get(id)
      if (!socket || !caughtUp(socket)) continue
      const view = viewOfSocket(socket)
      ready.set(view, [...(ready.get(view) ?? []), id])
    }
    for (const [view, ids] of ready) {
      for (const id of ids) sockets.get(id)!.leave(BEHIND)
      io.to(ids).emit('snapshot', snapshotFor(next, view))
    }
  }

  const unsubscribe = lab.onSnapshot((s) => {
    pending = s
    if (timer) return
    const wait = Math.max(0, lastEmitAt + minIntervalMs - performance.now())
    timer = setTimeout(flush, wait)
  })
  return {
    current: () => broadcast,
    stop() {
      unsubscribe()
      if (timer) clearTimeout(timer)
    },
  }
}

/**
 * Token first, then the rate of its kind (access.ts): unauthenticated commands never spend the client's control bucket.
 */
function admit(gate: AccessGate | undefined, client: string, handshake: HandshakeToken, meta: unknown): Refusal | null {
  if (!gate) return null
  let authorized = !gate.controlNeedsToken || handshake === 'valid'
  let error =
    handshake === 'invalid' ? TOKEN_NOT_VALID : `${TOKEN_REQUIRED} or send command(name, payload, { token }, ack)`
  const token = typeof meta === 'object' && meta !== null ? (meta as { token?: unknown }).token : undefined
  if (!authorized && token !== undefined) {
    authorized = gate.authorized(token)
    error = TOKEN_NOT_VALID
  }
  const r = authorized ? gate.admitAuthorized(client) : gate.refuseUnauthorized(client, error)
  if (!r) return null
  return r.reason === 'rate_limited'
    ? { reason: 'rate_limited', error: 'rate limited' }
    : { reason: 'unauthorized', error: r.error }
}

type CommandRunner = (client: string, handshake: HandshakeToken, args: unknown[]) => Promise<CommandResult>

/** Runs command(name, payload[, { token }]) for a client: admitted, then executed; never throws. */
function commandRunner(
  lab: LabController,
  gate: AccessGate | undefined,
  hooks: LiveSocketHooks,
  log: (msg: string) => void,
): CommandRunner {
  return async (client, handshake, args) => {
    const [name, payload, meta] = args
    const label = typeof name === 'string' ? name.slice(0, 40) : `<${name === null ? 'null' : typeof name}>`
    const refuse = (reason: 'unauthorized' | 'rate_limited' | 'bad_input', error: string): CommandResult => {
      hooks.rejected?.({ reason, error, client })
      return { ok: false, error }
    }
    const refused = admit(gate, client, handshake, meta)
    if (refused) return refuse(refused.reason, refused.error)
    if (args.length > 3) return refuse('bad_input', 'command takes (name, payload[, { token }], ack)')
    // As REST refuses a null body: null is not an empty payload.
    if (payload === null && typeof name === 'string' && Object.hasOwn(COMMANDS, name))
      return refuse('bad_input', nullPayloadError(name))
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
}

/** One browser's socket: its first snapshot, resync (rate-limited), commands, and refusals of anything else. */
function serve(
  socket: LiveSocketConn,
  current: () => LabSnapshot,
  runCommand: CommandRunner,
  resyncs: RateLimiter,
  hooks: LiveSocketHooks,
): void {
  const client = socket.handshake.address
  // A new or reconnecting browser catches up from the snapshot the next delta builds on; a session
  // that has not taken its connect packet yet (polling, no request pending) gets it once it has.
  enterView(socket, viewOfSocket(socket))
  const mine = () => snapshotFor(current(), viewOfSocket(socket))
  if (caughtUp(socket)) socket.emit('snapshot', mine())
  else socket.join(BEHIND)
  // Behind, its queue just handed to the transport: the newest snapshot, next in line.
  socket.conn.on('drain', () => {
    if (!socket.connected || !socket.rooms.has(BEHIND)) return
    socket.leave(BEHIND)
    socket.emit('snapshot', mine())
  })

  socket.on('resync', (ack) => {
    if (typeof ack !== 'function') return
    // Latest wins: no snapshot is queued behind undelivered packets; the newest follows once they are taken.
    if (!caughtUp(socket)) {
      socket.join(BEHIND)
      return
    }
    if (resyncs.take(socket.id)) {
      socket.leave(BEHIND)
      return ack(mine())
    }
    hooks.rejected?.({ reason: 'rate_limited', error: 'resync rate limited', client })
    ack(null)
  })

  // view(name, ack): the page changed; the socket is sent what the new page draws, from this snapshot
  // on. The answer names the socket's view after the call and, when it could be sent at once, the
  // snapshot. Counted with resyncs (each answer is a full snapshot); refused, the socket keeps its view.
  socket.on('view', (view, ack) => {
    if (typeof ack !== 'function') return
    if (!isLiveView(view)) {
      hooks.rejected?.({ reason: 'bad_input', error: 'unknown view', client })
      return ack({ view: viewOfSocket(socket), snapshot: null })
    }
    if (!resyncs.take(socket.id)) {
      hooks.rejected?.({ reason: 'rate_limited', error: 'view rate limited', client })
      return ack({ view: viewOfSocket(socket), snapshot: null })
    }
    enterView(socket, view)
    // Latest wins, as for resync: behind undelivered packets, the snapshot follows once they are taken.
    if (!caughtUp(socket)) {
      socket.join(BEHIND)
      return ack({ view, snapshot: null })
    }
    socket.leave(BEHIND)
    ack({ view, snapshot: mine() })
  })

  // command(name, payload[, { token }], ack): every argument is untrusted.
  const raw = socket as unknown as Socket
  raw.on('command', (...args: unknown[]) => {
    const ack = typeof args[args.length - 1] === 'function' ? (args.pop() as (r: CommandResult) => void) : null
    void runCommand(client, (socket.data as { token?: HandshakeToken }).token ?? 'none', args).then((result) => {
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
}

export function attachLiveSocket(
  httpServer: HttpServer,
  {
    lab,
    minIntervalMs = 1000 / DEFAULT_EMITS_PER_SEC,
    slowParts = SLOW_PARTS_EVERY_MS,
    log = () => {},
    gate,
    hooks = {},
    sessions = DEFAULT_SESSION_LIMITS,
  }: LiveSocketOptions,
): LiveSocket {
  const io = createIo(httpServer, gate, hooks)
  const guard = new SessionGuard(sessions)
  guardSessions(io, gate, guard, hooks)
  const broadcast = startBroadcast(lab, io, minIntervalMs, slowParts)
  const runCommand = commandRunner(lab, gate, hooks, log)
  const resyncs = new RateLimiter(RESYNC_RATE)
  io.on('connection', (socket: LiveSocketConn) => serve(socket, broadcast.current, runCommand, resyncs, hooks))
  return {
    io,
    sessions: guard,
    async close() {
      broadcast.stop()
      await new Promise<void>((resolve) => io.close(() => resolve()))
    },
  }
}
