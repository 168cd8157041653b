// Request bodies for the REST endpoints: JSON, at most MAX_BODY_BYTES, with an HttpError whose
// status says what the client must change; and the responses they get.

import type { IncomingMessage, ServerResponse } from 'node:http'
import { noteOutcome } from './outcome.ts'

export const MAX_BODY_BYTES = 16 * 1024

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** The refusal of a null body (REST) or payload (socket), in the same words on both. */
export const nullPayloadError = (command: string) =>
  `invalid ${command}: the body must be a JSON object, not null (or send no body)`

/**
 * Reads a JSON body of at most MAX_BODY_BYTES; undefined when there is none (zero bytes). Only JSON's own whitespace
 * may surround the value: a byte-order mark, or a body of whitespace alone, is refused (400).
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? 0)
  if (declared > MAX_BODY_BYTES) throw new HttpError(413, `body larger than ${MAX_BODY_BYTES} bytes`)
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `body larger than ${MAX_BODY_BYTES} bytes`)
    chunks.push(chunk)
  }
  if (size === 0) return undefined
  const text = Buffer.concat(chunks).toString('utf8')
  if (/^[ \t\r\n]*$/.test(text))
    throw new HttpError(400, 'body is not valid JSON: it holds only whitespace; send no body, or a JSON object')
  if (text.startsWith('\uFEFF'))
    throw new HttpError(400, 'body is not valid JSON: it starts with a byte-order mark; send UTF-8 without one')
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase()
  if (type !== 'application/json') throw new HttpError(415, 'send the body as Content-Type: application/json')
  try {
    return JSON.parse(text)
  } catch {
    throw new HttpError(400, 'body is not valid JSON')
  }
}

/** A complete response of this type; never cached. A refused oversized body closes the connection. */
export function send(
  res: ServerResponse,
  status: number,
  body: string,
  type: string,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...(status === 413 ? { connection: 'close' } : {}),
    ...extra,
  })
  res.end(body)
}

export const sendJson = (res: ServerResponse, status: number, body: unknown, extra?: Record<string, string>) =>
  send(res, status, JSON.stringify(body), 'application/json; charset=utf-8', extra)

/**
 * Answers a request whose handler threw: an HttpError with its status and message; anything else
 * with 500 'internal error' (never a stack trace to the client: the full error goes to the log).
 */
export function sendFailure(res: ServerResponse, err: unknown, log: (msg: string) => void, what: string): void {
  if (err instanceof HttpError) {
    noteOutcome(res, { error: err.message })
    sendJson(res, err.status, { error: err.message })
    return
  }
  log(`${what} failed: ${err instanceof Error ? err.message : String(err)}`)
  noteOutcome(res, { error: 'internal error', cause: err })
  if (!res.headersSent) sendJson(res, 500, { error: 'internal error' })
  else res.destroy()
}
