// Who may read the lab and who may control it.
//
// The server binds to loopback by default. Bound to any other address it refuses to start without
// EOSCOPE_TOKEN, and every control action (every lab command, experiment start and cancel) must
// carry the token: `Authorization: Bearer <token>` on REST, socket.io handshake `auth: { token }`
// (or a fourth `{ token }` argument to a `command` event) on the socket. On loopback the token is
// optional, and enforced when set. EOSCOPE_LOCK_READS=1 requires the token for reads too (GET /api/*,
// /metrics, the socket's snapshots). Every request must name an allowed Host (host-allowlist.ts).
//
// The token is checked before the rate: a control action with a valid token (or any, when no token
// is set) takes from its client's control bucket, and refusals for a missing or wrong token take
// from a bucket of their own, so a flood of unauthenticated requests from the operator's address
// (loopback, NAT, a reverse proxy) never locks the operator out. IPv6 clients share a bucket per /64.

import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'
import { HostAllowlist, isLoopbackHost, resolveHostAllowlist } from './host-allowlist.ts'
import { resolveSessionLimits, type SessionLimits } from './session-limits.ts'

export { HostAllowlist, isLoopbackHost }

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
  /**
   * Control actions per client address; unauthenticated refusals are limited at the same rate in buckets of their own.
   */
  controlRate: RateLimit
  /** The Host names (beside loopback) a request may use; default: loopback only. */
  allowedHosts?: HostAllowlist
  /** Live socket sessions at once and what one may have queued (session-limits.ts); default DEFAULT_SESSION_LIMITS. */
  sessions?: SessionLimits
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
export function resolveAccessPolicy(
  env: Record<string, string | undefined>,
  host: string,
  controlRate: RateLimit = DEFAULT_CONTROL_RATE,
): { ok: true; policy: AccessPolicy } | { ok: false; error: string } {
  const raw = env.EOSCOPE_TOKEN
  const token = raw === undefined || raw === '' ? null : raw
  const lockReads = parseFlag('EOSCOPE_LOCK_READS', env.EOSCOPE_LOCK_READS)
  if (typeof lockReads === 'string') return { ok: false, error: lockReads }
  if (token !== null) {
    if (/\s/.test(token)) return { ok: false, error: 'EOSCOPE_TOKEN must not contain whitespace' }
    if (token.length < MIN_TOKEN_LENGTH)
      return {
        ok: false,
        error: `EOSCOPE_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters (for example: openssl rand -hex 24)`,
      }
  }
  if (token === null && !isLoopbackHost(host)) {
    return {
      ok: false,
      error:
        `HOST=${host} is not a loopback address: set EOSCOPE_TOKEN (at least ${MIN_TOKEN_LENGTH} characters, for ` +
        `example: openssl rand -hex 24) so that only holders of the token can control the lab, or bind to ` +
        `127.0.0.1`,
    }
  }
  if (token === null && lockReads) return { ok: false, error: 'EOSCOPE_LOCK_READS=1 needs EOSCOPE_TOKEN' }
  const hosts = resolveHostAllowlist(env, host)
  if (!hosts.ok) return hosts
  const sessions = resolveSessionLimits(env)
  if (!sessions.ok) return sessions
  return {
    ok: true,
    policy: { token, lockReads, controlRate, allowedHosts: hosts.allowlist, sessions: sessions.limits },
  }
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

/** The eight 16-bit groups of an IPv6 address (an embedded IPv4 tail included). */
function ipv6Groups(address: string): string[] {
  let a = address.toLowerCase().replace(/%.*$/, '')
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a)
  if (v4) {
    const [b0, b1, b2, b3] = v4.slice(1).map(Number) as [number, number, number, number]
    a = `${a.slice(0, v4.index)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`
  }
  const [head, tail] = a.split('::') as [string, string | undefined]
  const h = head === '' ? [] : head.split(':')
  const t = tail === undefined || tail === '' ? [] : tail.split(':')
  const zeros = tail === undefined ? [] : Array<string>(8 - h.length - t.length).fill('0')
  return [...h, ...zeros, ...t].map((g) => g.replace(/^0+(?=.)/, ''))
}

/**
 * The rate limiter's key for a client address: IPv4 as is (v4-mapped IPv6 too), IPv6 by its /64,
 * since one host usually holds a whole /64 and could otherwise open a bucket per address.
 */
export function rateKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return mapped[1]!
  if (isIP(address.replace(/%.*$/, '')) !== 6) return address
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`
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

export type Rejection = {
  status: 401 | 403 | 421 | 429
  error: string
  reason: 'unauthorized' | 'cross_origin' | 'rate_limited' | 'misdirected'
  retryAfterSec?: number
}

/** The access checks shared by REST and the socket. */
export class AccessGate {
  /** Control actions that passed the token check, per client (rateKey). */
  readonly limiter: RateLimiter
  /** Refusals for a missing or wrong token, per client: limited on their own. */
  readonly refusals: RateLimiter
  readonly hosts: HostAllowlist

  constructor(
    readonly policy: AccessPolicy,
    now?: () => number,
  ) {
    this.limiter = new RateLimiter(policy.controlRate, now)
    this.refusals = new RateLimiter(policy.controlRate, now)
    this.hosts = policy.allowedHosts ?? new HostAllowlist()
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

  /** Checks the Host a request names (REST, pages, /metrics, the socket handshake): null when allowed. */
  checkHost(req: IncomingMessage): Rejection | null {
    const host = req.headers.host
    if (this.hosts.allows(host)) return null
    return {
      status: 421,
      error:
        `misdirected request: this server does not answer to the host ` +
        `${JSON.stringify(String(host).slice(0, 100))}; list it in EOSCOPE_ALLOWED_HOSTS if it is really this ` +
        `server's name`,
      reason: 'misdirected',
    }
  }

  /**
   * Admits an authorized control action by `client` (token checked first): it takes from
   * the client's control bucket. Null: run it.
   */
  admitAuthorized(client: string): Rejection | null {
    return this.take(this.limiter, client)
  }

  /**
   * Refuses an unauthorized control action by `client` with `error`, or with 429
   * once the client's refusal bucket is spent.
   */
  refuseUnauthorized(client: string, error: string): Rejection {
    return this.take(this.refusals, client) ?? { status: 401, error, reason: 'unauthorized' }
  }

  private take(bucket: RateLimiter, client: string): Rejection | null {
    const key = rateKey(client)
    if (bucket.take(key)) return null
    return {
      status: 429,
      error: 'rate limited: too many control actions; retry later',
      reason: 'rate_limited',
      retryAfterSec: bucket.retryAfterSec(key),
    }
  }

  /** Checks a REST read (GET/HEAD) request: null when allowed. */
  checkRead(req: IncomingMessage): Rejection | null {
    if (this.readsNeedToken && !this.authorized(bearerToken(req))) return unauthorized(req)
    return null
  }

  /**
   * Checks a REST control request (token, then the rate of its kind): null when allowed.
   * Host and origin are checked by the caller.
   */
  checkControl(req: IncomingMessage): Rejection | null {
    const client = clientAddress(req)
    if (!this.controlNeedsToken || this.authorized(bearerToken(req))) return this.admitAuthorized(client)
    return this.refuseUnauthorized(client, unauthorized(req).error)
  }
}

function unauthorized(req: IncomingMessage): Rejection {
  const sent = req.headers.authorization !== undefined
  return {
    status: 401,
    error: sent
      ? 'unauthorized: the token is not valid'
      : 'unauthorized: token required: send Authorization: Bearer <EOSCOPE_TOKEN>',
    reason: 'unauthorized',
  }
}
