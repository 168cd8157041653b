// Request bodies for the REST endpoints: JSON, at most MAX_BODY_BYTES, with an HttpError whose
// status says what the client must change.

import type { IncomingMessage } from 'node:http'

export const MAX_BODY_BYTES = 16 * 1024

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** Reads a JSON body of at most MAX_BODY_BYTES; undefined when the body is empty. */
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
  const text = Buffer.concat(chunks).toString('utf8').trim()
  if (text === '') return undefined
  const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  if (type !== 'application/json') throw new HttpError(415, 'send the body as Content-Type: application/json')
  try {
    return JSON.parse(text)
  } catch {
    throw new HttpError(400, 'body is not valid JSON')
  }
}
