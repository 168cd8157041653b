// The lab's REST API, served by the custom server before Next's handler.
//
//   GET  /api                          this list, as JSON (HEAD too)
//   GET  /api/lab                      the latest LabSnapshot (HEAD too)
//   GET  /api/lab/journal              the lab's event journal: ?after=ID&limit=N (500, at most 2000)
//                                      &category=kills,faults
//   GET  /api/lab/at                   the lab as it was shown at (or just after) ?t=MS; 404 when nothing is kept
//                                      near it
//   GET  /api/lab/messages             the message browser: ?topic=input|output|changelog&partition=&from=&to=
//                                      &key=&sinceMs=&untilMs=&limit=&lab=
//   GET  /api/lab/transactions         ended transactions with statistics: ?outcome=&transactionalId=&sinceMs=
//                                      &untilMs=&minDurationMs=&limit=&format=json|csv (JSON: the newest 500 rows,
//                                      limit at most 5000; CSV: streamed, every row kept)
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
//   POST /api/brokers/:id/kill         Kafka: SIGKILL a broker started by scripts/kafka-cluster.sh (body: none or {})
//   POST /api/brokers/:id/restart      Kafka: start that broker again (answers at once; the journal says when it is up)
//   POST /api/views/partition          choose the partition log view;
//                                      body: {"topic":"output","partition":0,"window":"latest"}
//   POST /api/transactions/abort-hanging  abort a hanging transaction (an ABORT marker, as WriteTxnMarkers writes);
//                                      body {"topic":"output","partition":0,"producerId":1000}; 409 when it is not
//                                      hanging
//   POST /api/faults/hanging-transaction  make a hanging transaction (embedded log);
//                                      body {"topic":"output","partition":0}
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
import { HttpError, MAX_BODY_BYTES, nullPayloadError, readJsonBody, sendFailure, sendJson } from './json-body.ts'
import { parseFrameQuery, parseJournalQuery } from '../lab/journal/journal-query.ts'
import { parseMessageQuery } from '../../lib/message-browser.ts'
import { sendTransactionHistory } from './transactions-route.ts'

export { MAX_BODY_BYTES }

export const API_ROUTES = [
  { method: 'GET', path: '/api/access', does: 'whether the controls (and the reads) need the token' },
  { method: 'GET', path: '/api/lab', does: 'the latest lab snapshot' },
  {
    method: 'GET',
    path: '/api/lab/journal',
    does: 'the event journal (?after=ID&limit=N&category=a,b&commits=all|none)',
  },
  { method: 'GET', path: '/api/lab/at', does: 'the lab as shown at an instant (?t=MS)' },
  {
    method: 'GET',
    path: '/api/lab/messages',
    does:
      'stored records of a lab topic, read_committed and read_uncommitted side by side ' +
      '(?topic&partition&from&to&key&sinceMs&untilMs&limit&lab; 410 when lab is not the running lab)',
  },
  {
    method: 'GET',
    path: '/api/observe',
    does:
      'an application eoscope did not start, on the Kafka cluster: its group, transactions, partitions and, ' +
      'given its record format, the validator (?applicationId&input&output&format&changelog&deadLetter)',
  },
  {
    method: 'GET',
    path: '/api/lab/transactions',
    does:
      'ended transactions with statistics ' +
      '(?outcome=&transactionalId=&sinceMs=&untilMs=&minDurationMs=&limit=&format=json|csv; ' +
      'JSON: 500 rows by default, at most 5000; CSV: streamed, every row kept)',
  },
  { method: 'POST', path: '/api/lab/config', does: 'change settings (setConfig body)' },
  { method: 'POST', path: '/api/lab/reset', does: 'reset the lab' },
  { method: 'POST', path: '/api/workers', does: 'add a worker' },
  { method: 'POST', path: '/api/workers/:id/kill', does: 'kill a worker abruptly' },
  { method: 'POST', path: '/api/workers/:id/pause', does: 'pause a worker (zombie)' },
  { method: 'POST', path: '/api/workers/:id/resume', does: 'resume a paused worker' },
  { method: 'POST', path: '/api/faults/drop-acks', does: 'drop the next produce acks ({count})' },
  { method: 'POST', path: '/api/faults/poison', does: 'append input records whose values do not parse ({count})' },
  {
    method: 'POST',
    path: '/api/faults/poison/skip',
    does: 'skip the poison records that stopped tasks (log-and-continue) and restart them',
  },
  { method: 'POST', path: '/api/scenarios/:name', does: 'run a guided scenario on the lab on screen' },
  { method: 'POST', path: '/api/brokers/:id/kill', does: 'SIGKILL a local broker (Kafka, scripts/kafka-cluster.sh)' },
  {
    method: 'POST',
    path: '/api/brokers/:id/restart',
    does: 'start a local broker again (Kafka, scripts/kafka-cluster.sh)',
  },
  { method: 'POST', path: '/api/views/partition', does: 'choose the partition log view ({topic, partition, window})' },
  {
    method: 'POST',
    path: '/api/transactions/abort-hanging',
    does: 'abort a hanging transaction ({topic, partition, producerId}); 409 when it is not hanging',
  },
  {
    method: 'POST',
    path: '/api/faults/hanging-transaction',
    does: 'make a hanging transaction ({topic, partition}; embedded log)',
  },
] as const

type Route =
  | { command: CommandName; payload: (body: unknown) => unknown }
  | { get: 'lab' | 'index' | 'journal' | 'at' | 'messages' | 'transactions' }

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
  if (pathname === '/api/lab/journal' || pathname === '/api/lab/at') {
    if (!read) throw new HttpError(405, `use GET for ${pathname}`)
    return { get: pathname === '/api/lab/at' ? 'at' : 'journal' }
  }
  if (pathname === '/api/lab/messages') {
    if (!read) throw new HttpError(405, `use GET for ${pathname}`)
    return { get: 'messages' }
  }
  if (pathname === '/api/lab/transactions') {
    if (!read) throw new HttpError(405, `use GET for ${pathname}`)
    return { get: 'transactions' }
  }
  if (pathname === '/api/lab/config') return post('setConfig')
  if (pathname === '/api/lab/reset') return post('reset')
  if (pathname === '/api/workers') return post('addWorker')
  if (pathname === '/api/faults/drop-acks') return post('dropAcks')
  if (pathname === '/api/faults/poison') return post('injectPoison')
  if (pathname === '/api/faults/poison/skip') return post('skipPoison')
  if (pathname === '/api/views/partition') return post('selectPartition')
  if (pathname === '/api/transactions/abort-hanging') return post('abortHangingTransaction')
  if (pathname === '/api/faults/hanging-transaction') return post('injectHangingTransaction')
  const scenario = /^\/api\/scenarios\/([a-z0-9-]{1,64})$/.exec(pathname)
  if (scenario) {
    return post('runScenario', (body) => {
      if (
        body !== undefined &&
        !(typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0)
      ) {
        throw new HttpError(400, 'invalid runScenario: the scenario is named in the path; send no body or {}')
      }
      return { name: scenario[1] }
    })
  }
  const broker = /^\/api\/brokers\/(\d{1,10})\/(kill|restart)$/.exec(pathname)
  if (broker) {
    return post(broker[2] === 'kill' ? 'killBroker' : 'restartBroker', (body) => {
      if (
        body !== undefined &&
        !(typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0)
      ) {
        throw new HttpError(400, 'invalid broker command: the broker is named in the path; send no body or {}')
      }
      return { brokerId: Number(broker[1]) }
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
      if (
        m[2] === 'kill' &&
        typeof body === 'object' &&
        body !== null &&
        !Array.isArray(body) &&
        Object.keys(body).length === 1 &&
        'step' in body
      ) {
        return { workerId, step: (body as { step: unknown }).step }
      }
      if (
        body !== undefined &&
        !(typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0)
      ) {
        throw new HttpError(
          400,
          `invalid ${WORKER_ACTIONS[m[2]!]}: the worker is named in the path; send no body or {}`,
        )
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

/** GET /api/lab/journal and /api/lab/at: reads of what the lab kept; bad parameters are 400, nothing near t is 404. */
function readPast(lab: LabController, what: 'journal' | 'at', params: URLSearchParams): unknown {
  if (what === 'journal') {
    const q = parseJournalQuery(params)
    if (!q.ok) throw new HttpError(400, q.error)
    if (!lab.journalPage) throw new HttpError(404, 'this lab keeps no journal')
    return lab.journalPage(q.value)
  }
  const t = parseFrameQuery(params)
  if (!t.ok) throw new HttpError(400, t.error)
  const frame = lab.frameAt?.(t.value) ?? null
  if (frame === null) throw new HttpError(404, `the lab kept no frame near t=${t.value}`)
  return frame
}

/**
 * GET /api/lab/messages: a page of the message browser; a bad query, partition or range is 400 and reads nothing,
 * and a query naming a lab that no longer runs (an old evidence card's link) is 410 Gone.
 */
async function readMessages(lab: LabController, params: URLSearchParams): Promise<unknown> {
  const q = parseMessageQuery(params)
  if (!q.ok) throw new HttpError(400, q.error)
  if (!lab.messages) throw new HttpError(404, 'this lab offers no message browser')
  const page = await lab.messages(q.value)
  if (!page.ok) throw new HttpError(page.gone ? 410 : 400, page.error)
  return page.value
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
        else if (r.get === 'index') sendJson(res, 200, { routes: API_ROUTES, maxBodyBytes: MAX_BODY_BYTES })
        else if (r.get === 'messages')
          sendJson(res, 200, await readMessages(lab, new URL(req.url ?? '/', 'http://localhost').searchParams))
        else if (r.get === 'transactions')
          sendTransactionHistory(lab, res, new URL(req.url ?? '/', 'http://localhost').searchParams)
        else sendJson(res, 200, readPast(lab, r.get, new URL(req.url ?? '/', 'http://localhost').searchParams))
        return true
      }
      if (!isSameOrigin(req)) throw new HttpError(403, 'cross-origin requests are refused')
      noteOutcome(res, { command: r.command })
      const body = await readJsonBody(req)
      if (body === null) throw new HttpError(400, nullPayloadError(r.command))
      const parsed = parseCommand(r.command, r.payload(body) ?? {})
      if (!parsed.ok) throw new HttpError(400, parsed.error)
      const result = await lab.execute(parsed.name, parsed.payload)
      if (!result.ok) throw new HttpError(result.conflict ? 409 : 400, result.error)
      sendJson(res, 200, result)
    } catch (err) {
      sendFailure(res, err, log, `REST ${req.method} ${pathname}`)
    }
    return true
  }
}
