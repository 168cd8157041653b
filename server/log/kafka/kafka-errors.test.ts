// kafkajs errors to LogError codes, through kafkajs's own wrappers (no broker needed).

import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import kafkajs from 'kafkajs'
import { LogError } from '../errors.ts'
import { logErrorCode, noBrokerAnswered, toLogError } from './kafka-errors.ts'

const {
  KafkaJSProtocolError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSNonRetriableError,
  KafkaJSConnectionError,
  KafkaJSAggregateError,
} = kafkajs as unknown as Record<string, new (...args: unknown[]) => Error>

function protocol(type: string, code: number): Error {
  return new KafkaJSProtocolError({ message: `broker said ${type}`, type, code, retriable: false })
}

describe('kafkajs error mapping', () => {
  it('names a fenced producer PRODUCER_FENCED, whichever code the broker version uses', () => {
    expect(logErrorCode(protocol('INVALID_PRODUCER_EPOCH', 47))).toBe('PRODUCER_FENCED')
    expect(logErrorCode(protocol('KAFKAJS_UNKNOWN_ERROR', 90))).toBe('PRODUCER_FENCED')
  })

  it('finds the protocol error inside kafkajs retry and aggregate wrappers', () => {
    const retried = new KafkaJSNumberOfRetriesExceeded(protocol('CONCURRENT_TRANSACTIONS', 51), {
      retryCount: 5,
      retryTime: 100,
    })
    expect(logErrorCode(retried)).toBe('CONCURRENT_TRANSACTIONS')
    const wrapped = new KafkaJSNonRetriableError(retried, { cause: retried })
    const mapped = toLogError(wrapped, 'sendOffsets')
    expect(mapped).toBeInstanceOf(LogError)
    expect((mapped as LogError).code).toBe('CONCURRENT_TRANSACTIONS')
    expect((mapped as LogError).retriable).toBe(true)
    expect((mapped as LogError).message).toMatch(/^CONCURRENT_TRANSACTIONS: sendOffsets: /)
    expect(logErrorCode(new KafkaJSAggregateError('many', [new Error('x'), protocol('UNKNOWN_MEMBER_ID', 25)]))).toBe(
      'UNKNOWN_MEMBER_ID',
    )
  })

  it('maps rebalances and connection failures, and leaves other errors alone', () => {
    expect(logErrorCode(protocol('REBALANCE_IN_PROGRESS', 27))).toBe('ILLEGAL_GENERATION')
    expect(logErrorCode(new KafkaJSConnectionError('Connection error: ECONNREFUSED', { broker: '127.0.0.1:1' }))).toBe(
      'BROKER_NOT_AVAILABLE',
    )
    // kafkajs's plain Error for a request on a broker whose connection was just cut (the ack-drop
    // proxy's cut, on Kafka): it failed an exactly_once run's workers while unmapped.
    expect(logErrorCode(new Error('Broker not connected'))).toBe('BROKER_NOT_AVAILABLE')
    expect(logErrorCode(new Error('Broker not connected yet, maybe'))).toBeNull()
    const bug = new TypeError('undefined is not a function')
    expect(toLogError(bug, 'send')).toBe(bug)
    const already = new LogError('INVALID_TXN_STATE', 'x')
    expect(toLogError(already, 'send')).toBe(already)
  })

  it('maps every answer Kafka marks retriable while a broker is away to a retriable LogError', () => {
    const { errorCodes } = createRequire(import.meta.url)('kafkajs/src/protocol/error.js') as {
      errorCodes: { type: string; code: number; retriable: boolean }[]
    }
    // A deleted topic is news to a worker, not a wait; a corrupt message is not a broker's absence.
    const apart = new Set([
      'UNKNOWN_TOPIC_OR_PARTITION',
      'CORRUPT_MESSAGE',
      'ELIGIBLE_LEADERS_NOT_AVAILABLE',
      'ELECTION_NOT_NEEDED',
    ])
    const unmapped = errorCodes
      .filter((e) => e.retriable && !apart.has(e.type))
      .filter((e) => {
        const mapped = toLogError(protocol(e.type, e.code), 'request')
        return !(mapped instanceof LogError) || !mapped.retriable
      })
      .map((e) => e.type)
    expect(unmapped).toEqual([])
    expect(logErrorCode(protocol('NOT_ENOUGH_REPLICAS_AFTER_APPEND', 20))).toBe('NOT_ENOUGH_REPLICAS')
  })

  it('tells a cluster that does not answer from one that answers with an error', () => {
    const refused = new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:19092', {
      broker: '127.0.0.1:19092',
    })
    expect(noBrokerAnswered(refused)).toBe(true)
    expect(noBrokerAnswered(new KafkaJSNumberOfRetriesExceeded(refused, { retryCount: 10, retryTime: 1000 }))).toBe(
      true,
    )
    expect(noBrokerAnswered(new Error('Broker not connected'))).toBe(true)
    // Right after a restart the broker answers, with errors, while its partitions get their leaders.
    const notLeader = new KafkaJSProtocolError({
      message: 'This server is not the leader for that topic-partition',
      type: 'NOT_LEADER_FOR_PARTITION',
      code: 6,
      retriable: true,
    })
    expect(noBrokerAnswered(notLeader)).toBe(false)
    expect(noBrokerAnswered(new KafkaJSNumberOfRetriesExceeded(notLeader, { retryCount: 10, retryTime: 1000 }))).toBe(
      false,
    )
    expect(noBrokerAnswered(new KafkaJSAggregateError('many', [refused, notLeader]))).toBe(false)
    expect(noBrokerAnswered(new TypeError('undefined is not a function'))).toBe(false)
  })
})
