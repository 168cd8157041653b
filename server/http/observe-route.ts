// The /observe page's API (dashboard mode of `eoscope observe`), served before the lab's:
//
//   GET /api/observe?applicationId=ID[&input=T[,T]][&output=T[,T]][&format=eoscope[&changelog=T][&deadLetter=T]]
//       200 {sample}: the application's latest sample (server/observe/application-observer.ts),
//           at most one new one a second per target however many browsers ask;
//       400 a target that does not parse (server/observe/observe-target.ts, the CLI's words),
//           nothing connected; 501 on a server without a Kafka cluster (the embedded log holds
//           only eoscope's own lab); 502 when the cluster's answer failed, with its words.
//
// Read-only like the CLI: no group is joined, nothing is written.

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ApplicationSample, ObserveTarget } from '../observe/application-observer.ts'
import type { ObserverRegistry } from '../observe/observer-registry.ts'
import { parseObserveTarget } from '../observe/observe-target.ts'
import type { ObserveSampleView } from '../../lib/observe-protocol.ts'
import { HttpError, sendFailure, sendJson } from './json-body.ts'
import { pathOf } from './rest.ts'

export const OBSERVE_PATH = '/api/observe'

export const NO_CLUSTER =
  'observe watches an application on a Kafka cluster; this server runs the embedded log, which holds only ' +
  "eoscope's own lab (start the server with EOSCOPE_BACKEND=kafka KAFKA_BROKERS=HOST:PORT, or run eoscope " +
  'observe --brokers)'

/** Handles /api/observe; returns false (doing nothing) for any other path. */
export function createObserveHandler(registry: ObserverRegistry | null, log: (msg: string) => void = () => {}) {
  return async function handleObserve(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const pathname = pathOf(req).replace(/\/+$/, '')
    if (pathname !== OBSERVE_PATH) return false
    const method = req.method ?? 'GET'
    try {
      if (method !== 'GET' && method !== 'HEAD') throw new HttpError(405, `use GET for ${OBSERVE_PATH}`)
      const q = new URL(req.url ?? '/', 'http://localhost').searchParams
      // Asked with no target, the page learns whether this server can observe at all (200 either way:
      // a browser logs an error status as a console error).
      if (q.size === 0) {
        sendJson(res, 200, registry ? { available: true } : { available: false, reason: NO_CLUSTER })
        return true
      }
      let target: ObserveTarget
      try {
        target = parseObserveTarget({
          applicationId: q.get('applicationId') ?? undefined,
          input: q.get('input') ?? undefined,
          output: q.get('output') ?? undefined,
          format: q.get('format') ?? undefined,
          changelog: q.get('changelog') ?? undefined,
          deadLetter: q.get('deadLetter') ?? undefined,
        })
      } catch (e) {
        if (e instanceof RangeError) throw new HttpError(400, e.message)
        throw e
      }
      if (!registry) throw new HttpError(501, NO_CLUSTER)
      let sample: ApplicationSample
      try {
        sample = await registry.sample(target)
      } catch (e) {
        throw new HttpError(
          502,
          `the cluster's answer failed: ${e instanceof Error ? e.message.slice(0, 300) : String(e)}`,
        )
      }
      // The wire shape the page reads (lib/observe-protocol.ts); HEAD: Node sends the headers only.
      const body: { sample: ObserveSampleView } = { sample }
      sendJson(res, 200, body)
    } catch (err) {
      sendFailure(res, err, log, `REST ${method} ${pathname}`)
    }
    return true
  }
}
