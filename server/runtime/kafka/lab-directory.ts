// Where workers on other machines find the dashboard's lab: the `eoscope-labs` topic (one
// partition) holds one descriptor per start, reset or config change of the lab — its
// application.id and the settings every member of its group must share. `eoscope worker
// --follow-lab` reads the latest, joins that application, and starts again with the next one
// whenever the lab moves on, so a worker started once keeps following a lab that resets.

import {
  PROCESSING_GUARANTEES,
  type ProcessingGuarantee,
  type StreamsConfig,
  streamsConfigFor,
  validateStreamsConfig,
} from '../../../lib/streams-config.ts'
import { withKafkaGroupTimeouts } from '../../log/kafka/capabilities.ts'
import type { LogConnection } from '../../log/types.ts'
import type { LabEvent } from '../lab-runtime.ts'
import { retrying } from './kafka-worker.ts'

export const LAB_DIRECTORY_TOPIC = 'eoscope-labs'
const POLL_MS = 500

export interface LabDescriptor {
  applicationId: string
  partitions: number
  'processing.guarantee': ProcessingGuarantee
  'commit.interval.ms': number
  'session.timeout.ms': number
  'transaction.timeout.ms': number
  'enable.idempotence': boolean
  'max.poll.records': number
  publishedAtMs: number
}

export function descriptorOf(config: StreamsConfig, partitions: number, nowMs: number): LabDescriptor {
  return {
    applicationId: config['application.id'],
    partitions,
    'processing.guarantee': config['processing.guarantee'],
    'commit.interval.ms': config['commit.interval.ms'],
    'session.timeout.ms': config['session.timeout.ms'],
    'transaction.timeout.ms': config['transaction.timeout.ms'],
    'enable.idempotence': config['enable.idempotence'],
    'max.poll.records': config['max.poll.records'],
    publishedAtMs: nowMs,
  }
}

/** What the directory says: a lab to join, or that a lab has shut down (its topics are going away). */
export type DirectoryEntry = { kind: 'lab'; descriptor: LabDescriptor } | { kind: 'closed'; applicationId: string }

const APPLICATION_ID = /^[A-Za-z0-9._-]{1,200}$/

/** A JSON object, or null for anything else (bad JSON included). */
function jsonObject(value: string | null): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(value ?? '')
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** A directory record, checked: anything malformed is refused (null), never guessed at. */
export function parseEntry(value: string | null): DirectoryEntry | null {
  const c = jsonObject(value)
  if (c?.closed === true)
    return typeof c.applicationId === 'string' && APPLICATION_ID.test(c.applicationId)
      ? { kind: 'closed', applicationId: c.applicationId }
      : null
  const d = c && descriptorFrom(c)
  return d ? { kind: 'lab', descriptor: d } : null
}

/** A descriptor read from the topic, checked: anything malformed is refused (null), never guessed at. */
export function parseDescriptor(value: string | null): LabDescriptor | null {
  const d = jsonObject(value)
  return d && descriptorFrom(d)
}

function descriptorFrom(d: Record<string, unknown>): LabDescriptor | null {
  const int = (x: unknown, min: number) => typeof x === 'number' && Number.isInteger(x) && x >= min
  if (typeof d.applicationId !== 'string' || !APPLICATION_ID.test(d.applicationId)) return null
  if (
    !int(d.partitions, 1) ||
    !int(d['commit.interval.ms'], 1) ||
    !int(d['session.timeout.ms'], 1) ||
    !int(d['transaction.timeout.ms'], 1) ||
    !int(d['max.poll.records'], 1)
  )
    return null
  if (
    !PROCESSING_GUARANTEES.includes(d['processing.guarantee'] as ProcessingGuarantee) ||
    typeof d['enable.idempotence'] !== 'boolean' ||
    typeof d.publishedAtMs !== 'number'
  )
    return null
  return d as unknown as LabDescriptor
}

/** The streams config a follower runs with (the descriptor's settings, validated as any config is). */
export function configOf(d: LabDescriptor): StreamsConfig {
  return validateStreamsConfig(
    withKafkaGroupTimeouts(
      streamsConfigFor(d['processing.guarantee'], {
        applicationId: d.applicationId,
        commitIntervalMs: d['commit.interval.ms'],
        transactionTimeoutMs: d['transaction.timeout.ms'],
        maxPollRecords: d['max.poll.records'],
        idempotence: d['enable.idempotence'],
      }),
      d['session.timeout.ms'],
    ),
  )
}

/** Same application and the same settings (the publish time aside). */
export function sameLab(a: LabDescriptor, b: LabDescriptor): boolean {
  const { publishedAtMs: _a, ...x } = a
  const { publishedAtMs: _b, ...y } = b
  return JSON.stringify(x) === JSON.stringify(y)
}

/** The directory topic: compacted on its one key, so the latest entry outlives any retention time. */
const DIRECTORY_SPEC = [{ topic: LAB_DIRECTORY_TOPIC, partitions: 1, compacted: true }]

async function publish(conn: LogConnection, value: object): Promise<void> {
  await conn.admin().createTopics(DIRECTORY_SPEC)
  const producer = conn.producer({ clientId: 'eoscope-lab-directory', idempotent: true })
  try {
    await retrying(
      () => producer.send([{ topic: LAB_DIRECTORY_TOPIC, partition: 0, key: 'lab', value: JSON.stringify(value) }]),
      10_000,
    )
  } finally {
    await producer.close().catch(() => {})
  }
}

export function publishLab(conn: LogConnection, d: LabDescriptor): Promise<void> {
  return publish(conn, d)
}

/** Says the lab of this application.id has shut down: followers stop and wait for the next one. */
export function publishClosed(conn: LogConnection, applicationId: string, nowMs: number): Promise<void> {
  return publish(conn, { applicationId, closed: true, publishedAtMs: nowMs })
}

/**
 * The lab to join now (null when none has published, or the latest has shut down), and the
 * offset after the directory's latest entry.
 */
export async function latestLab(
  conn: LogConnection,
): Promise<{ descriptor: LabDescriptor | null; nextOffset: number }> {
  await conn.admin().createTopics(DIRECTORY_SPEC)
  const tp = { topic: LAB_DIRECTORY_TOPIC, partition: 0 }
  const reader = conn.reader()
  const o = await retrying(() => reader.offsets(tp), 10_000)
  // The newest entries are at the end: look back a little further each time none parses.
  for (let back = 16; ; back *= 4) {
    const from = Math.max(o.logStartOffset, o.highWatermark - back)
    let latest: DirectoryEntry | null = null
    let offset = from
    while (offset < o.highWatermark) {
      const r = await reader.read(tp, offset, 1_000, 'read_committed')
      for (const rec of r.records) latest = parseEntry(rec.value) ?? latest
      if (r.nextOffset <= offset) break
      offset = r.nextOffset
    }
    if (latest || from === o.logStartOffset)
      return {
        descriptor: latest?.kind === 'lab' ? latest.descriptor : null,
        nextOffset: Math.max(offset, o.highWatermark),
      }
  }
}

/**
 * Waits for the directory to say something new after `fromOffset`: another lab or other settings
 * than `current`, or (current non-null) that current has shut down (descriptor null). Resolves
 * with the newest such entry; null once `stopped()` holds.
 */
export async function nextLab(
  conn: LogConnection,
  current: LabDescriptor | null,
  fromOffset: number,
  stopped: () => boolean,
): Promise<{ descriptor: LabDescriptor | null; nextOffset: number } | null> {
  const tp = { topic: LAB_DIRECTORY_TOPIC, partition: 0 }
  const reader = conn.reader()
  let offset = fromOffset
  while (!stopped()) {
    try {
      const r = await reader.read(tp, offset, 1_000, 'read_committed')
      let newest: DirectoryEntry | null = null
      for (const rec of r.records) newest = parseEntry(rec.value) ?? newest
      offset = Math.max(offset, r.nextOffset)
      // The newest of what arrived: a lab reset twice in a row is followed once.
      if (newest?.kind === 'lab' && (current === null || !sameLab(newest.descriptor, current)))
        return { descriptor: newest.descriptor, nextOffset: offset }
      if (newest?.kind === 'closed' && current !== null && newest.applicationId === current.applicationId)
        return { descriptor: null, nextOffset: offset }
    } catch {
      // an outage: try again
    }
    await new Promise((r) => setTimeout(r, POLL_MS))
  }
  return null
}

/**
 * Tells workers started elsewhere with --follow-lab which application to join, with which
 * settings. A failure is shown (a notice), not fatal: the lab runs on, only followers do not learn of it.
 */
export async function publishOrNotice(
  conn: LogConnection,
  descriptor: LabDescriptor,
  notify: (e: LabEvent) => void,
): Promise<void> {
  try {
    await publishLab(conn, descriptor)
  } catch (e) {
    notify({
      type: 'runtime-notice',
      marker: 'outage',
      label:
        `lab directory (${LAB_DIRECTORY_TOPIC}) not updated: ` +
        `${(e instanceof Error ? e.message : String(e)).slice(0, 80)}`,
      atMs: descriptor.publishedAtMs,
    })
  }
}

/**
 * Tells workers started elsewhere with --follow-lab which application to join, with which settings: only
 * the dashboard's lab publishes (labDirectory 'publish').
 */
export async function publishIfDashboardLab(
  o: { labDirectory?: 'publish'; partitions: number },
  conn: LogConnection,
  config: StreamsConfig,
  nowMs: number,
  notify: (e: LabEvent) => void,
): Promise<void> {
  if (o.labDirectory === 'publish') await publishOrNotice(conn, descriptorOf(config, o.partitions, nowMs), notify)
}
