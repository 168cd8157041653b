// The headers every response carries against framing (clickjacking) and injected scripts.
//
// Pages get a Content-Security-Policy with a fresh nonce per request: scripts run only when they
// carry it ('strict-dynamic' lets them load Next's chunks). Next finds the nonce in the request's
// Content-Security-Policy header and puts it on the scripts it writes; the root layout reads it
// from the x-nonce request header for its own inline script (which is why pages render per
// request). No page may be framed (frame-ancestors 'none', X-Frame-Options: DENY); API responses
// get a policy that allows nothing at all.

import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'

/** How Next serves pages: development mode needs 'unsafe-eval' (React's dev tools). */
export type NextMode = 'production' | 'development'

/** The policy of a page served with this nonce. */
export function pageCsp(nonce: string, mode: NextMode = 'production'): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${mode === 'development' ? " 'unsafe-eval'" : ''}`,
    // React writes style attributes into the server-rendered HTML; styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** The policy of JSON, metrics and refusals: nothing loads, nothing frames. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'"

function setCommon(res: ServerResponse): void {
  res.setHeader('x-frame-options', 'DENY')
  res.setHeader('x-content-type-options', 'nosniff')
  res.setHeader('referrer-policy', 'same-origin')
}

/** Headers of an API response (JSON, /metrics, refusals). */
export function setApiSecurityHeaders(res: ServerResponse): void {
  setCommon(res)
  res.setHeader('content-security-policy', API_CSP)
}

/**
 * Headers of a response Next will write (pages, their assets): a fresh nonce, in the response's
 * policy and in the request's headers where Next and the layout read it. Returns the nonce.
 */
export function setPageSecurityHeaders(
  req: IncomingMessage,
  res: ServerResponse,
  mode: NextMode = 'production',
): string {
  const nonce = randomBytes(18).toString('base64')
  const csp = pageCsp(nonce, mode)
  setCommon(res)
  res.setHeader('content-security-policy', csp)
  req.headers['content-security-policy'] = csp
  req.headers['x-nonce'] = nonce
  return nonce
}
