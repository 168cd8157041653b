// The live sessions (socket.io over engine.io) a server holds, bounded: how many at once in total
// and per client address, and how many bytes one session may have queued and not yet taken.
//
// A polling session that never fetches keeps whatever the server queues for it, and a pong now and
// then keeps it alive; without bounds, 60 such sessions took the server from 193 to 631 MB. The
// broadcast queues no snapshot or delta for a session that has not taken the last one (latest wins,
// live-socket.ts); these limits bound the rest: the number of sessions, and what small packets
// (acknowledgements, pings) can pile up in one. A session over its byte cap is closed; a handshake
// over a session cap is refused (429 per client, 503 in total) with the reason.
//
//   EOSCOPE_MAX_SESSIONS               live sessions at once, all clients together (default 1000)
//   EOSCOPE_MAX_SESSIONS_PER_CLIENT    live sessions at once from one address, IPv6 by its /64 (default 100)
//   EOSCOPE_SESSION_BUFFER_BYTES       bytes queued for one session before it is closed (default 1 MiB)

import { rateKey } from './access.ts'

export interface SessionLimits {
  /** Live sessions at once, every client together. */
  maxSessions: number
  /** Live sessions at once from one client address (rateKey: IPv6 by its /64). */
  maxSessionsPerClient: number
  /** Bytes queued for one session and not yet taken by it (about: packet data plus a fixed overhead per packet). */
  maxBufferedBytes: number
}

export const DEFAULT_SESSION_LIMITS: Readonly<SessionLimits> = {
  maxSessions: 1000,
  maxSessionsPerClient: 100,
  maxBufferedBytes: 1024 * 1024,
}

/** What a queued packet costs beside its data (the packet object, its options), for the byte cap. */
export const PACKET_OVERHEAD_BYTES = 64

const SETTINGS: [keyof SessionLimits, string, number, number][] = [
  ['maxSessions', 'EOSCOPE_MAX_SESSIONS', 1, 1_000_000],
  ['maxSessionsPerClient', 'EOSCOPE_MAX_SESSIONS_PER_CLIENT', 1, 1_000_000],
  // At least a few full snapshots (about 100 KB each on the default lab).
  ['maxBufferedBytes', 'EOSCOPE_SESSION_BUFFER_BYTES', 256 * 1024, 1024 ** 3],
]

/** The session limits from the environment; an error (the server must not start) for a value out of range. */
export function resolveSessionLimits(
  env: Record<string, string | undefined>,
): { ok: true; limits: SessionLimits } | { ok: false; error: string } {
  const limits: SessionLimits = { ...DEFAULT_SESSION_LIMITS }
  for (const [key, name, min, max] of SETTINGS) {
    const raw = env[name]?.trim()
    if (raw === undefined || raw === '') continue
    const n = Number(raw)
    if (!/^\d{1,10}$/.test(raw) || n < min || n > max)
      return { ok: false, error: `${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}` }
    limits[key] = n
  }
  return { ok: true, limits }
}

export interface SessionRefusal {
  status: 429 | 503
  error: string
  reason: 'too_many_sessions'
  retryAfterSec: number
}

/** The engine.io session as the guard sees it. */
export interface GuardedSession {
  readonly remoteAddress: string
  on(event: 'packetCreate', listener: (packet: { data?: unknown }) => void): unknown
  on(event: 'flush', listener: () => void): unknown
  once(event: 'close', listener: () => void): unknown
  close(discard?: boolean): unknown
}

/** Bytes a queued packet's data takes (a string's length: the wire is UTF-8, mostly ASCII JSON). */
function dataBytes(data: unknown): number {
  if (typeof data === 'string') return data.length
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return data.byteLength
  return 0
}

/** Counts the live sessions per client and in total, admits handshakes, and closes a session whose queue overflows. */
export class SessionGuard {
  private readonly perClient = new Map<string, number>()
  private live = 0
  private queuedTotal = 0

  constructor(readonly limits: SessionLimits) {}

  /** Live sessions now (every client). */
  get sessions(): number {
    return this.live
  }

  /** Bytes queued now for every session together and not yet taken (as the byte cap counts them). */
  get queuedBytes(): number {
    return this.queuedTotal
  }

  /** Live sessions now from this address's key. */
  sessionsOf(address: string): number {
    return this.perClient.get(rateKey(address)) ?? 0
  }

  /** Null when `address` may open one more session; otherwise the refusal. */
  admit(address: string): SessionRefusal | null {
    if (this.live >= this.limits.maxSessions)
      return {
        status: 503,
        error:
          `too many live sessions: this server holds at most ${this.limits.maxSessions} at once ` +
          '(EOSCOPE_MAX_SESSIONS); retry later',
        reason: 'too_many_sessions',
        retryAfterSec: 5,
      }
    if (this.sessionsOf(address) >= this.limits.maxSessionsPerClient)
      return {
        status: 429,
        error:
          `too many live sessions from this address: at most ${this.limits.maxSessionsPerClient} at once ` +
          '(EOSCOPE_MAX_SESSIONS_PER_CLIENT); close another tab or retry later',
        reason: 'too_many_sessions',
        retryAfterSec: 5,
      }
    return null
  }

  /**
   * Counts a new session until it closes, and closes it (discarding its queue) once more than maxBufferedBytes are
   * queued for it; `overflow` is told first.
   */
  track(session: GuardedSession, overflow: (queuedBytes: number) => void): void {
    const key = rateKey(session.remoteAddress)
    this.live++
    this.perClient.set(key, (this.perClient.get(key) ?? 0) + 1)
    let queued = 0
    let checking = false
    let closing = false
    // Checked once the sends of this turn are done: a packet a writable transport takes at once is not queued.
    const check = () => {
      checking = false
      if (queued <= this.limits.maxBufferedBytes || closing) return
      closing = true
      overflow(queued)
      session.close(true)
    }
    session.on('packetCreate', (packet) => {
      const bytes = dataBytes(packet.data) + PACKET_OVERHEAD_BYTES
      queued += bytes
      this.queuedTotal += bytes
      if (checking || closing) return
      checking = true
      setImmediate(check)
    })
    session.on('flush', () => {
      this.queuedTotal -= queued
      queued = 0
    })
    session.once('close', () => {
      this.queuedTotal -= queued
      queued = 0
      this.live--
      const left = (this.perClient.get(key) ?? 1) - 1
      if (left > 0) this.perClient.set(key, left)
      else this.perClient.delete(key)
    })
  }
}
