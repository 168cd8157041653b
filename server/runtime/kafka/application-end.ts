// What is left to do once a lab's application on a cluster has ended: tell workers following the
// lab (they stop and wait for the next one), and delete its topics, each on a fresh connection
// (the runtime's own is closed by then), retrying through an outage for a while.

import type { Logger } from '../../logging.ts'
import { KafkaConnection, type KafkaClientConfig } from '../../log/kafka/kafka-connection.ts'
import type { Retirement } from '../lab-runtime.ts'
import { appTopicNames, type KafkaAppTopics } from './kafka-app.ts'
import { publishClosed } from './lab-directory.ts'

const DELETE_ATTEMPTS = 3
const ANNOUNCE_WITHIN_MS = 5_000
/** After a reset, how long workers following the lab get to move to the new application before the old topics go. */
const FOLLOWERS_LEAVE_MS = 5_000

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function deleteApplicationTopics(
  client: KafkaClientConfig,
  groupId: string,
  t: KafkaAppTopics,
  log: Logger,
): Promise<void> {
  for (let attempt = 1; attempt <= DELETE_ATTEMPTS; attempt++) {
    const conn = new KafkaConnection({ ...client, clientId: `${client.clientId}-cleanup` })
    try {
      await conn.admin().deleteTopics(appTopicNames(t))
      return
    } catch (e) {
      if (attempt === DELETE_ATTEMPTS)
        log.warn({ err: e }, `the topics of ${groupId} were not deleted: ${(e as Error).message}`)
      else await sleep(2_000 * attempt)
    } finally {
      await conn.close().catch(() => {})
    }
  }
}

/** Tells followers that this application has ended (bounded: a cluster that is down cannot be told). */
export async function announceClosed(client: KafkaClientConfig, groupId: string, nowMs: number): Promise<void> {
  const conn = new KafkaConnection({ ...client, clientId: `${client.clientId}-directory` })
  try {
    await Promise.race([publishClosed(conn, groupId, nowMs), sleep(ANNOUNCE_WITHIN_MS)])
  } catch {
    // followers of an application whose topics are gone fail and wait for the directory
  } finally {
    await conn.close().catch(() => {})
  }
}

/**
 * After a runtime's close: replaced by a fresh application (a reset), the topics go once followers
 * have had time to move over; ended for good, followers are told first and the topics go at once.
 */
export async function retireApplication(
  how: Retirement,
  o: { client: KafkaClientConfig; labDirectory?: 'publish'; keepTopics?: boolean },
  groupId: string,
  topics: KafkaAppTopics,
  log: Logger,
  nowMs: number,
): Promise<void> {
  if (how === 'replaced') await sleep(FOLLOWERS_LEAVE_MS)
  else if (o.labDirectory === 'publish') await announceClosed(o.client, groupId, nowMs)
  if (!o.keepTopics) await deleteApplicationTopics(o.client, groupId, topics, log)
}
