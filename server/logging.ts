// Structured server logs (pino, one JSON object a line on stdout). LOG_LEVEL picks the level:
// fatal, error, warn, info (the default), debug, trace or silent; under vitest the default is silent.

import pino, { type Logger } from 'pino'

export type { Logger }

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/** The level from LOG_LEVEL, or an error message for a level pino does not know. */
export function logLevelFrom(
  env: Record<string, string | undefined>,
): { ok: true; level: string } | { ok: false; error: string } {
  const raw = env.LOG_LEVEL?.trim().toLowerCase()
  if (!raw) return { ok: true, level: env.VITEST ? 'silent' : 'info' }
  if (!(LOG_LEVELS as readonly string[]).includes(raw))
    return {
      ok: false,
      error: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(env.LOG_LEVEL)}`,
    }
  return { ok: true, level: raw }
}

export function createLogger(level = 'info', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { name: 'eoscope' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Tokens never reach the log, even when a request object is logged whole.
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'auth.token', 'token'],
      censor: '[redacted]',
    },
  }
  return destination ? pino(options, destination) : pino(options)
}

/** A logger that writes nothing (the default of library code and tests). */
export const silentLogger: Logger = pino({ level: 'silent' })

/** A plain `(msg) => void` for code that takes a message callback (the experiment service). */
export const messageLog =
  (logger: Logger, fields: Record<string, unknown> = {}) =>
  (msg: string) =>
    logger.info(fields, msg)
