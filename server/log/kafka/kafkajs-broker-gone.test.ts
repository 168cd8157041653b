// The two parts of the kafkajs patch for a broker that goes away (patches/kafkajs+2.2.4.patch):
// offsets are committed to the group's coordinator looked up again, not to the broker it was on
// (a worker died of "BROKER_NOT_AVAILABLE: commit offsets of group ...: Broker 3 not found in the
// cached metadata" while broker 3 was down), and a connection that never connected adds no
// listener to its socket each time it is disconnected (Node's MaxListenersExceededWarning).

import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'

const require = createRequire(import.meta.url)
// kafkajs's own classes, as the patch leaves them (CommonJS, untyped here).
const OffsetManager = require('kafkajs/src/consumer/offsetManager') as new (
  o: object,
) => {
  commitOffsets(o: { topics: object[] }): Promise<void>
}
const Connection = require('kafkajs/src/network/connection') as new (
  o: object,
) => {
  connect(): Promise<void>
  disconnect(): Promise<void>
  socket: import('node:net').Socket
}
const socketFactory = require('kafkajs/src/network/socketFactory') as () => unknown
const { createLogger, LEVELS } = require('kafkajs/src/loggers') as {
  createLogger(o: object): unknown
  LEVELS: Record<string, number>
}

const logger = createLogger({ level: LEVELS.NOTHING, logCreator: () => () => {} })

function broker(nodeId: number, connected = true) {
  const commits: object[] = []
  return {
    nodeId,
    commits,
    fail: null as (Error & { type?: string }) | null,
    isConnected: () => connected,
    async offsetCommit(payload: object) {
      if (this.fail) throw this.fail
      commits.push(payload)
    },
  }
}

describe('the patched OffsetManager', () => {
  const topics = [{ topic: 'in', partitions: [{ partition: 0, offset: '42' }] }]

  it("commits to the group's coordinator found again once the broker it was on is gone", async () => {
    const gone = broker(3, false)
    const moved = broker(1)
    const lookups: object[] = []
    const cluster = {
      findBroker: () => Promise.reject(Object.assign(new Error('Broker 3 not found in the cached metadata'), {})),
      findGroupCoordinator: async (q: object) => {
        lookups.push(q)
        return moved
      },
      refreshMetadata: async () => {},
      committedOffsets: () => ({}),
    }
    const m = new OffsetManager({
      cluster,
      coordinator: gone,
      memberAssignment: { in: [0] },
      topicConfigurations: {},
      instrumentationEmitter: { emit: () => {} },
      groupId: 'app',
      generationId: 7,
      memberId: 'm-1',
    })
    await m.commitOffsets({ topics })
    expect(lookups).toEqual([{ groupId: 'app' }])
    expect(moved.commits).toEqual([{ groupId: 'app', memberId: 'm-1', groupGenerationId: 7, topics }])
    await m.commitOffsets({ topics })
    expect(lookups, 'kept while it answers').toHaveLength(1)
  })

  it('looks the coordinator up again after NOT_COORDINATOR from a broker still connected', async () => {
    const old = broker(2)
    const next = broker(1)
    const cluster = {
      findGroupCoordinator: async () => next,
      refreshMetadata: async () => {},
      committedOffsets: () => ({}),
    }
    const m = new OffsetManager({
      cluster,
      coordinator: old,
      memberAssignment: { in: [0] },
      topicConfigurations: {},
      instrumentationEmitter: { emit: () => {} },
      groupId: 'app',
      generationId: 7,
      memberId: 'm-1',
    })
    old.fail = Object.assign(new Error('This is not the correct coordinator for this group'), {
      type: 'NOT_COORDINATOR_FOR_GROUP',
    })
    await expect(m.commitOffsets({ topics })).rejects.toThrow('not the correct coordinator')
    await m.commitOffsets({ topics })
    expect(next.commits).toHaveLength(1)
  })
})

describe('the patched Connection', () => {
  it('adds no listener to a socket that never connected, however often it is disconnected', async () => {
    // A port nothing listens on: take one and close it.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port
        s.close(() => resolve(p))
      })
    })
    const conn = new Connection({
      host: '127.0.0.1',
      port,
      logger,
      socketFactory: socketFactory(),
      requestTimeout: 1_000,
      connectionTimeout: 1_000,
    })
    await expect(conn.connect()).rejects.toThrow()
    const before = conn.socket.listenerCount('connect')
    for (let i = 0; i < 20; i++) await conn.disconnect()
    expect(conn.socket.listenerCount('connect')).toBe(before)
  })
})
