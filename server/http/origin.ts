// Same-origin checks for the socket and the REST API: a browser page from another origin may
// neither open the lab's socket nor change the lab through the API (no CORS headers are sent).

import type { IncomingMessage } from 'node:http'

/**
 * True when the request carries no Origin (a non-browser client such as curl or the CLI) or an
 * Origin whose host is the host the request was sent to.
 */
export function isSameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin
  if (origin === undefined) return true
  const host = req.headers.host
  if (!host) return false
  try {
    const url = new URL(origin)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host.toLowerCase() === host.toLowerCase()
  } catch {
    return false
  }
}
