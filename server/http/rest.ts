// The lab's REST API, served by the custom server before Next's handler.
//
//   GET  /api                          this list, as JSON (HEAD too)
//   GET  /api/lab                      the latest LabSnapshot (HEAD too)
//   POST /api/lab/config               change settings; body: a setConfig command, e.g.
//                                      {"processing.guarantee":"exactly_once","commit.interval.ms":100}
//   POST /api/lab/reset                reset the lab (body: none or {})
//   POST /api/workers                  add a worker (body: none or {})
//   POST /api/workers/:id/kill         kill a worker abruptly: no flush, no commit, no abort, no leave-group;
//                                      body {"step": 1-5} kills it when it next reaches that step
//   POST /api/workers/:id/pause        pause a worker (it turns zombie and is fenced when it resumes)
//   POST /api/workers/:id/resume       resume a paused worker
//   POST /api/faults/drop-acks         drop the next produce acks; body: {"count": 1}
//   POST /api/faults/poison            append input records whose values do not parse; body: {"count": 1}
//   POST /api/faults/poison/skip       after a poison record stopped tasks under the fail handler: switch to
//                                      log-and-continue (the record goes to the dead-letter topic) and restart them
//   POST /api/scenarios/:name          run a guided scenario on the lab on screen (body: none or {})
//   POST /api/views/partition          choose the partition log view; body: {"topic":"output","partition":0,"window":"latest"}
//
// Bodies are JSON (Content-Type: application/json), at most 16 KB. Every body is validated with
// the lab protocol's parseCommand; bad input gets 400 {"error": "..."} and changes nothing. A body,
// when sent, is a JSON object: `null` is refused like any other non-object.
// Success is 200 {"ok": true, "message"?: "..."}. Requests from another origin's page get 403.

import type { IncomingMessage, ServerResponse } from 'node:http'
import { parseCommand, type CommandName } from '../../lib/lab-protocol.ts'
import type { LabController } from '../lab/lab-controller.ts'
import { isSameOrigin } from './origin.ts'
import { noteOutcome } from './outcome.ts'
import { HttpError, MAX_BODY_BYTES, readJsonBody, sendFailure, sendJson } from './json-body.ts'

export { MAX_BODY_BYTES }

export const API_ROUTES = [
  { method: 'GET', path: '/api/lab', does: 'the latest lab snapshot' },
  { method: 'POST', path: '/api/lab/config', does: 'change settings (setConfig body)' },
  { method: 'POST', path: '/api/lab/reset', does: 'reset the lab' },
  { method: 'POST', path: '/api/workers', does: 'add a worker' },
  { method: 'POST', path: '/api/workers/:id/kill', does: 'kill a worker abruptly' },
  { method: 'POST', path: '/api/workers/:id/pause', does: 'pause a worker (zombie)' },
  { method: 'POST', path: '/api/workers/:id/resume', does: 'resume a paused worker' },
  { method: 'POST', path: '/api/faults/drop-acks', does: 'drop the next produce acks ({count})' },
  { method: 'POST', path: '/api/faults/poison', does: 'append input records whose values do not parse ({count})' },
  { method: 'POST', path: '/api/faults/poison/skip', does: 'skip the poison records that stopped tasks (log-and-continue) and restart them' },
  { method: 'POST', path: '/api/scenarios/:name', does: 'run a guided scenario on the lab on screen' },
  { method: 'POST', path: '/api/views/partition', does: 'choose the partition log view ({topic, partition, window})' },
] as const


type Route = { command: CommandName; payload: (body: unknown) => unknown } | { get: 'lab' | 'index' }

const WORKER_ACTIONS: Record<string, CommandName> = { kill: 'killWorker', pause: 'pauseWorker', resume: 'resumeWorker' }

/** Maps a method and path to a route; throws HttpError 404/405. */
function route(method: string, pathname: string): Route {
  const post = (command: CommandName, payload: (body: unknown) => unknown = (b) => b): Route => {
    if (method !== 'POST') throw new HttpError(405, `use POST for ${pathname}`)
    return { command, payload }
  }
  const read = method === 'GET' || method === 'HEAD'
  if (pathname === '/api' || pathname === '/api/') {
    if (!read) throw new HttpError(405, 'use GET for /api')
    return { get: 'index' }
  }
  if (pathname === '/api/lab') {
    if (!read) throw new HttpError(405, 'use GET for /api/lab')
    return { get: 'lab' }
  }
  if (pathname === '/api/lab/config') return post('setConfig')
  if (pathname === '/api/lab/reset') return post('reset')
  if (pathname === '/api/workers') return post('addWorker')
  if (pathname === '/api/faults/drop-acks') return post('dropAcks')
  if (pathname === '/api/faults/poison') return post('injectPoison')
  if (pathname === '/api/faults/poison/skip') return post('skipPoison')
  if (pathname === '/api/views/partition') return post('selectPartition')
  const scenario = /^\/api\/scenarios\/([a-z0-9-]{1,64})$/.exec(pathname)
  if (scenario) {
    return post('runScenario', (body) => {
      if (body !== undefined && !(typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0)) {
        throw new HttpError(400, 'invalid runScenario: the scenario is named in the path; send no body or {}')
      }
      return { name: scenario[1] }
    })
  }
  const m = /^\/api\/workers\/([^/]+)\/(kill|pause|resume)$/.exec(pathname)
  if (m) {
    let workerId: string
    try {
      workerId = decodeURIComponent(m[1]!)
    } catch {
      throw new HttpError(400, 'malformed worker id')
    }
    return post(WORKER_ACTIONS[m[2]!]!, (body) => {
      // A kill may name the step at which the worker dies: {"step": 1-5}.
      if (m[2] === 'kill' && typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 1 && 'step' in body) {
        return { workerId, step: (body as { step: unknown }).step }
      }
      if (body !== undefined && !(typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0)) {
        throw new HttpError(400, `invalid ${WORKER_ACTIONS[m[2]!]}: the worker is named in the path; send no body or {}`)
      }
      return { workerId }
    })
  }
  throw new HttpError(404, `no such endpoint: ${method} ${pathname}; see GET /api`)
}

/** The request's path; '/' for a request target that is not a valid URL path. */
export function pathOf(req: IncomingMessage): string {
  try {
    return new URL(req.url ?? '/', 'http://localhost').pathname
  } catch {
    return '/'
  }
}


/**
 * Handles a request under /api/; returns false (and does nothing) for any other path, so the
 * caller can pass it on to Next.
 */
export function createRestHandler(lab: LabController, log: (msg: string) => void = () => {}) {
  return async function handleRest(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const pathname = pathOf(req)
    if (pathname !== '/api' && !pathname.startsWith('/api/')) return false
    try {
      const r = route(req.method ?? 'GET', pathname)
      if ('get' in r) {
        if (r.get === 'lab') sendJson(res, 200, lab.snapshot())
        else sendJson(res, 200, { routes: API_ROUTES, maxBodyBytes: MAX_BODY_BYTES })
        return true
      }
      if (!isSameOrigin(req)) throw new HttpError(403, 'cross-origin requests are refused')
      noteOutcome(res, { command: r.command })
      const body = await readJsonBody(req)
      if (body === null) throw new HttpError(400, `invalid ${r.command}: the body must be a JSON object, not null (or send no body)`)
      const parsed = parseCommand(r.command, r.payload(body) ?? {})
      if (!parsed.ok) throw new HttpError(400, parsed.error)
      const result = await lab.execute(parsed.name, parsed.payload)
      if (!result.ok) throw new HttpError(400, result.error)
      sendJson(res, 200, result)
    } catch (err) {
      sendFailure(res, err, log, `REST ${req.method} ${pathname}`)
    }
    return true
  }
}
