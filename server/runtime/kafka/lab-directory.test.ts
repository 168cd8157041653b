import { describe, expect, it } from 'vitest'
import { streamsConfigFor } from '../../../lib/streams-config.ts'
import { EmbeddedCluster } from '../../log/embedded/embedded-cluster.ts'
import { ClientFaults, EmbeddedConnection } from '../../log/embedded/embedded-connection.ts'
import { ProcessHandle } from '../../log/embedded/process-handle.ts'
import { MockTime } from '../../log/time.ts'
import {
  configOf,
  descriptorOf,
  LAB_DIRECTORY_TOPIC,
  latestLab,
  nextLab,
  parseDescriptor,
  parseEntry,
  publishClosed,
  publishLab,
  sameLab,
} from './lab-directory.ts'

function connection() {
  const cluster = new EmbeddedCluster(new MockTime(0))
  return new EmbeddedConnection(cluster, new ProcessHandle('test'), new ClientFaults())
}

const eos = descriptorOf(
  streamsConfigFor('exactly_once', { applicationId: 'eoscope-lab-a', commitIntervalMs: 200 }),
  6,
  1,
)

describe('the lab directory', () => {
  it('round-trips a descriptor into the config a follower runs with', () => {
    const d = parseDescriptor(JSON.stringify(eos))!
    expect(d).toEqual(eos)
    const c = configOf(d)
    expect(c).toMatchObject({
      'application.id': 'eoscope-lab-a',
      'processing.guarantee': 'exactly_once',
      'commit.interval.ms': 200,
    })
  })

  it('refuses malformed descriptors instead of guessing', () => {
    for (const bad of [
      '',
      'null',
      '[]',
      '{}',
      JSON.stringify({ ...eos, applicationId: 'a b' }),
      JSON.stringify({ ...eos, partitions: 0 }),
      JSON.stringify({ ...eos, 'processing.guarantee': 'exactly_twice' }),
      JSON.stringify({ ...eos, 'enable.idempotence': 'yes' }),
      JSON.stringify({ ...eos, 'commit.interval.ms': 1.5 }),
    ]) {
      expect(parseDescriptor(bad), bad).toBeNull()
    }
  })

  it('tells a new lab or new settings from a republished one', () => {
    expect(sameLab(eos, { ...eos, publishedAtMs: 99 })).toBe(true)
    expect(sameLab(eos, { ...eos, applicationId: 'eoscope-lab-b' })).toBe(false)
    expect(sameLab(eos, { ...eos, 'commit.interval.ms': 100 })).toBe(false)
  })

  it('finds the latest lab, skipping garbage, and waits for the next one', async () => {
    const conn = connection()
    expect(await latestLab(conn)).toEqual({ descriptor: null, nextOffset: 0 })
    await publishLab(conn, eos)
    const p = conn.producer({ clientId: 'noise', idempotent: false })
    await p.send([{ topic: LAB_DIRECTORY_TOPIC, partition: 0, key: 'lab', value: 'not json' }])
    const first = await latestLab(conn)
    expect(first?.descriptor).toEqual(eos)
    // A republished identical descriptor is not a new lab; two new ones in a row: the newest is followed.
    await publishLab(conn, { ...eos, publishedAtMs: 2 })
    await publishLab(conn, { ...eos, applicationId: 'eoscope-lab-b', publishedAtMs: 3 })
    await publishLab(conn, { ...eos, applicationId: 'eoscope-lab-c', publishedAtMs: 4 })
    const next = await nextLab(conn, first!.descriptor, first!.nextOffset, () => false)
    expect(next?.descriptor?.applicationId).toBe('eoscope-lab-c')
    let stop = false
    const waiting = nextLab(conn, next!.descriptor, next!.nextOffset, () => stop)
    setTimeout(() => (stop = true), 50)
    expect(await waiting).toBeNull()
  })

  it('tells followers when the lab shuts down, and where to go when another starts', async () => {
    const conn = connection()
    await publishLab(conn, eos)
    const at = await latestLab(conn)
    expect(at.descriptor).toEqual(eos)
    // Another application's shutdown is not news for this one's followers.
    await publishClosed(conn, 'eoscope-lab-other', 5)
    await publishClosed(conn, eos.applicationId, 6)
    const closed = await nextLab(conn, eos, at.nextOffset, () => false)
    expect(closed?.descriptor).toBeNull()
    expect((await latestLab(conn)).descriptor).toBeNull()
    await publishLab(conn, { ...eos, applicationId: 'eoscope-lab-d', publishedAtMs: 7 })
    const d = await nextLab(conn, null, closed!.nextOffset, () => false)
    expect(d?.descriptor?.applicationId).toBe('eoscope-lab-d')
    expect(parseEntry(JSON.stringify({ applicationId: 'x y', closed: true }))).toBeNull()
  })
})
