// What a REST handler did with a request, noted on the response for the server's log and metrics
// (which see it when the response finishes) without every handler taking a logger.

import type { ServerResponse } from 'node:http'

export interface Outcome {
  /** The lab command the request ran or tried to run. */
  command?: string
  /** The error message the client was sent. */
  error?: string
  /** The full error behind a 500 (logged, never sent). */
  cause?: unknown
}

const outcomes = new WeakMap<ServerResponse, Outcome>()

export function noteOutcome(res: ServerResponse, outcome: Outcome): void {
  outcomes.set(res, { ...outcomes.get(res), ...outcome })
}

export function outcomeOf(res: ServerResponse): Outcome | undefined {
  return outcomes.get(res)
}

/** A low-cardinality reason for a refused request, from its status. */
export function rejectionReason(status: number): string {
  switch (status) {
    case 400:
      return 'bad_input'
    case 401:
      return 'unauthorized'
    case 403:
      return 'forbidden'
    case 404:
      return 'not_found'
    case 405:
      return 'method_not_allowed'
    case 409:
      return 'conflict'
    case 413:
      return 'too_large'
    case 415:
      return 'unsupported_media_type'
    case 421:
      return 'misdirected'
    case 429:
      return 'rate_limited'
    default:
      return status >= 500 ? 'server_error' : `http_${status}`
  }
}
