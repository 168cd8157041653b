// Who may read the lab and who may control it.
//
// The server binds to loopback by default. Bound to any other address it refuses to start without
// EOSCOPE_TOKEN, and every control action (every lab command, experiment start and cancel) must
// carry the token: `Authorization: Bearer <token>` on REST, socket.io handshake `auth: { token }`
// (or a fourth `{ token }` argument to a `command` event) on the socket. On loopback the token is
// optional, and enforced when set. EOSCOPE_LOCK_READS=1 requires the token for reads too (GET /api/*,
// /metrics, the socket's snapshots). Control actions are rate-limited per client address.

import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'

export const MIN_TOKEN_LENGTH = 16

export interface RateLimit {
  /** Tokens added per second. */
  perSec: number
  /** Bucket size: the burst a client may send at once. */
  burst: number
}

export const DEFAULT_CONTROL_RATE: RateLimit = { perSec: 10, burst: 20 }

export interface AccessPolicy {
  /** null: no token configured (only allowed on loopback); control and reads are open. */
  token: string | null
  /** Reads (GET /api/*, /metrics, socket snapshots) need the token too. */
  lockReads: boolean
  /** Control actions per client address. */
  controlRate: RateLimit
}

/** True for addresses only this machine can reach: localhost, 127.0.0.0/8, ::1 (and v4-mapped 127/8). */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1')
  if (h === 'localhost' || h.endsWith('.localhost')) return true
  if (isIP(h) === 4) return h.startsWith('127.')
  if (isIP(h) === 6) {
    if (h === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(h)) return true
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h)
    return mapped !== null && mapped[1]!.startsWith('127.')
  }
  return false
}

function parseFlag(name: string, value: string | undefined): boolean | string {
  if (value === undefined || value === '' || value === '0' || value.toLowerCase() === 'false') return false
  if (value === '1' || value.toLowerCase() === 'true') return true
  return `${name} must be 1 or 0, got ${JSON.stringify(value)}`
}

/**
 * The access policy for a server bound to `host`, from EOSCOPE_TOKEN and EOSCOPE_LOCK_READS.
 * An error (the server must not start) when the host is not loopback and no token is set, when
 * reads are locked without a token, or when the token is too short to be a secret.
 */
export function resolveAccessPolicy(env: Record<string, string | undefined>, host: string, controlRate: RateLimit = DEFAULT_CONTROL_RATE): { ok: true; policy: AccessPolicy } | { ok: false; error: string } {
  const raw = env.EOSCOPE_TOKEN
  const token = raw === undefined || raw === '' ? null : raw
  const lockReads = parseFlag('EOSCOPE_LOCK_READS', env.EOSCOPE_LOCK_READS)
  if (typeof lockReads === 'string') return { ok: false, error: lockReads }
  if (token !== null) {
    if (/\s/.test(token)) return { ok: false, error: 'EOSCOPE_TOKEN must not contain whitespace' }
    if (token.length < MIN_TOKEN_LENGTH) return { ok: false, error: `EOSCOPE_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters (for example: openssl rand -hex 24)` }
  }
  if (token === null && !isLoopbackHost(host)) {
    return { ok: false, error: `HOST=${host} is not a loopback address: set EOSCOPE_TOKEN (at least ${MIN_TOKEN_LENGTH} characters, for example: openssl rand -hex 24) so that only holders of the token can control the lab, or bind to 127.0.0.1` }
  }
  if (token === null && lockReads) return { ok: false, error: 'EOSCOPE_LOCK_READS=1 needs EOSCOPE_TOKEN' }
  return { ok: true, policy: { token, lockReads, controlRate } }
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest()

/** Constant-time comparison (the digests have equal length whatever the inputs). */
export function tokenMatches(expected: string, provided: unknown): boolean {
  if (typeof provided !== 'string' || provided.length > 4096) return false
  return timingSafeEqual(digest(expected), digest(provided))
}

/** The token of an `Authorization: Bearer <token>` header, if any. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization
  if (typeof h !== 'string') return undefined
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(h)
  return m?.[1]
}

/** A client's address, for rate limiting and logs. */
export function clientAddress(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown'
}

/** Token buckets per key; idle full buckets are forgotten so the map stays bounded. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>()

  constructor(
    readonly limit: RateLimit,
    private readonly now: () => number = () => performance.now(),
    private readonly maxKeys = 10_000,
  ) {}

  /** Takes one token for this key; false when the bucket is empty (the action must be refused). */
  take(key: string): boolean {
    const now = this.now()
    let b = this.buckets.get(key)
    if (b) {
      b.tokens = Math.min(this.limit.burst, b.tokens + ((now - b.at) / 1000) * this.limit.perSec)
      b.at = now
    } else {
      if (this.buckets.size >= this.maxKeys) this.prune(now)
      b = { tokens: this.limit.burst, at: now }
      this.buckets.set(key, b)
    }
    if (b.tokens < 1) return false
    b.tokens -= 1
    return true
  }

  /** Seconds until this key may act again (at least 1), for Retry-After. */
  retryAfterSec(key: string): number {
    const b = this.buckets.get(key)
    if (!b || b.tokens >= 1) return 1
    return Math.max(1, Math.ceil((1 - b.tokens) / this.limit.perSec))
  }

  private prune(now: number): void {
    for (const [k, b] of this.buckets) {
      if (b.tokens + ((now - b.at) / 1000) * this.limit.perSec >= this.limit.burst) this.buckets.delete(k)
    }
    // Everyone is active: drop the oldest entries rather than grow without bound.
    while (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!)
  }
}

export type Rejection = { status: 401 | 403 | 429; error: string; reason: 'unauthorized' | 'cross_origin' | 'rate_limited'; retryAfterSec?: number }

/** The access checks shared by REST and the socket. */
export class AccessGate {
  readonly limiter: RateLimiter

  constructor(
    readonly policy: AccessPolicy,
    now?: () => number,
  ) {
    this.limiter = new RateLimiter(policy.controlRate, now)
  }

  get controlNeedsToken(): boolean {
    return this.policy.token !== null
  }

  get readsNeedToken(): boolean {
    return this.policy.token !== null && this.policy.lockReads
  }

  /** True when no token is configured or `provided` is the token. */
  authorized(provided: unknown): boolean {
    return this.policy.token === null || tokenMatches(this.policy.token, provided)
  }

  /** Rate limit for a control action by this client; false: refuse it. */
  allowControl(client: string): boolean {
    return this.limiter.take(client)
  }

  /** Checks a REST read (GET/HEAD) request: null when allowed. */
  checkRead(req: IncomingMessage): Rejection | null {
    if (this.readsNeedToken && !this.authorized(bearerToken(req))) return unauthorized(req)
    return null
  }

  /** Checks a REST control request (rate, then token): null when allowed. Origin is checked by the caller. */
  checkControl(req: IncomingMessage): Rejection | null {
    const client = clientAddress(req)
    if (!this.allowControl(client)) return { status: 429, error: 'rate limited: too many control actions; retry later', reason: 'rate_limited', retryAfterSec: this.limiter.retryAfterSec(client) }
    if (this.controlNeedsToken && !this.authorized(bearerToken(req))) return unauthorized(req)
    return null
  }
}

function unauthorized(req: IncomingMessage): Rejection {
  const sent = req.headers.authorization !== undefined
  return { status: 401, error: sent ? 'unauthorized: the token is not valid' : 'unauthorized: send Authorization: Bearer <EOSCOPE_TOKEN>', reason: 'unauthorized' }
}
