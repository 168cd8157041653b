// Which names a request may address the server by: the defence against DNS rebinding.
//
// A page on rebind.evil.example whose name is made to resolve to 127.0.0.1 talks to the server as
// its own origin: its Origin and Host agree, so the same-origin check alone lets it in. Its Host,
// though, names the attacker's domain. The server therefore answers only requests whose Host is
// loopback (localhost, *.localhost, 127.0.0.0/8, [::1]), the address it is bound to (every address
// of this machine's interfaces when bound to 0.0.0.0 or ::), or a name listed in
// EOSCOPE_ALLOWED_HOSTS (comma-separated: the names a reverse proxy or the LAN uses). Anything else
// gets 421 Misdirected Request, and the socket handshake is refused. A request without a Host (not
// a browser: HTTP/1.0 clients) is allowed. Ports are not compared.

import { isIP } from 'node:net'
import { networkInterfaces } from 'node:os'

/** True for addresses only this machine can reach: localhost, 127.0.0.0/8, ::1 (and v4-mapped 127/8). */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
  if (h === 'localhost' || h.endsWith('.localhost')) return true
  if (isIP(h) === 4) return h.startsWith('127.')
  if (isIP(h) === 6) {
    if (h === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(h)) return true
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h)
    // A URL writes ::ffff:127.0.0.1 as ::ffff:7f00:1.
    return (mapped !== null && mapped[1]!.startsWith('127.')) || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h)
  }
  return false
}

/** A Host header's or an allowlist entry's host name as a browser normalizes it; null when malformed. */
export function hostnameOf(value: string): string | null {
  const t = value.trim()
  const v = isIP(t) === 6 ? `[${t}]` : t
  if (v === '' || v.length > 300 || /[\s/?#@\\]/.test(v)) return null
  try {
    const url = new URL(`http://${v}`)
    return url.hostname.replace(/\.$/, '')
  } catch {
    return null
  }
}

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '::0', ''])

/** This machine's interface addresses, as hostnameOf gives them (IPv6 in brackets). */
function interfaceAddresses(): string[] {
  const out: string[] = []
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      const name = hostnameOf(a.address)
      if (name) out.push(name)
    }
  }
  return out
}

export class HostAllowlist {
  private readonly names: ReadonlySet<string>

  /** `names`: host names or addresses beside loopback (normalized here). */
  constructor(names: Iterable<string> = []) {
    const set = new Set<string>()
    for (const n of names) {
      const h = hostnameOf(n)
      if (h) set.add(h)
    }
    this.names = set
  }

  /** The extra names (beside loopback), for the start log. */
  get extra(): string[] {
    return [...this.names]
  }

  /** True when a request with this Host header may be answered. */
  allows(hostHeader: string | undefined): boolean {
    if (hostHeader === undefined) return true
    const h = hostnameOf(hostHeader)
    if (h === null) return false
    return isLoopbackHost(h) || this.names.has(h)
  }
}

/**
 * The allowlist of a server bound to `boundHost`, from EOSCOPE_ALLOWED_HOSTS. An error (the server
 * must not start) for an entry that is not a bare host name or address.
 */
export function resolveHostAllowlist(
  env: Record<string, string | undefined>,
  boundHost: string,
): { ok: true; allowlist: HostAllowlist } | { ok: false; error: string } {
  const entries = (env.EOSCOPE_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')
  for (const e of entries) {
    const h = hostnameOf(e)
    if (h === null || hostnameOf(`${e}:1`) === null) {
      return {
        ok: false,
        error:
          `EOSCOPE_ALLOWED_HOSTS: ${JSON.stringify(e.slice(0, 100))} is not a host name or address (list names ` +
          `without scheme or port, comma-separated, e.g. eoscope.lan,192.168.1.20)`,
      }
    }
  }
  const bound = WILDCARDS.has(boundHost.trim()) ? interfaceAddresses() : [boundHost]
  return { ok: true, allowlist: new HostAllowlist([...bound, ...entries]) }
}
