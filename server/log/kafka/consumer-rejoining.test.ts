// Between a retriable failure of kafkajs's fetch loop (a broker gone past its retries) and the
// restart kafkajs then makes by itself, the consumer has no group: its calls answer "Consumer group
// was not initialized". A worker took that for fatal and died while a broker was down (bench:failover
// on three brokers). These tests hold kafkajs's own words to what the consumer recognises.

import { Kafka, logLevel } from 'kafkajs'
import { describe, expect, it } from 'vitest'
import { isRejoining } from './kafka-consumer.ts'

const groupless = () =>
  new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING }).consumer({ groupId: 'rejoining-test' })

describe('a kafkajs consumer between a crash and its restart', () => {
  it('answers seek with the error the consumer recognises as rejoining', () => {
    let thrown: unknown
    try {
      groupless().seek({ topic: 'in', partition: 0, offset: '5' })
    } catch (e) {
      thrown = e
    }
    expect(thrown).toBeInstanceOf(Error)
    expect(isRejoining(thrown)).toBe(true)
  })

  it('answers commitOffsets likewise', async () => {
    const thrown = await groupless()
      .commitOffsets([{ topic: 'in', partition: 0, offset: '5' }])
      .then(
        () => null,
        (e: unknown) => e,
      )
    expect(isRejoining(thrown)).toBe(true)
  })

  it('is not any other error', () => {
    expect(isRejoining(new Error('The group is rebalancing, so a rejoin is needed'))).toBe(false)
    expect(isRejoining('Consumer group was not initialized')).toBe(false)
  })
})
