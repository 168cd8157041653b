// kafkajs errors to the log seam's LogError codes. kafkajs wraps protocol errors in retry errors
// (KafkaJSNumberOfRetriesExceeded, KafkaJSNonRetriableError) and aggregates them; the protocol
// type is found by walking `cause` and `errors`.

import { LogError, type LogErrorCode } from '../errors.ts'

interface KafkajsErrorLike {
  name?: string
  message?: string
  type?: string
  code?: number | string
  cause?: unknown
  errors?: unknown[]
}

/** Kafka protocol error types (as kafkajs names them) to LogError codes. */
const BY_PROTOCOL_TYPE: Record<string, LogErrorCode> = {
  INVALID_PRODUCER_EPOCH: 'PRODUCER_FENCED',
  PRODUCER_FENCED: 'PRODUCER_FENCED',
  OUT_OF_ORDER_SEQUENCE_NUMBER: 'OUT_OF_ORDER_SEQUENCE_NUMBER',
  INVALID_TXN_STATE: 'INVALID_TXN_STATE',
  INVALID_PRODUCER_ID_MAPPING: 'INVALID_TXN_STATE',
  CONCURRENT_TRANSACTIONS: 'CONCURRENT_TRANSACTIONS',
  ILLEGAL_GENERATION: 'ILLEGAL_GENERATION',
  REBALANCE_IN_PROGRESS: 'ILLEGAL_GENERATION',
  UNKNOWN_MEMBER_ID: 'UNKNOWN_MEMBER_ID',
  UNSTABLE_OFFSET_COMMIT: 'UNSTABLE_OFFSET_COMMIT',
  UNKNOWN_TOPIC_OR_PARTITION: 'UNKNOWN_TOPIC_OR_PARTITION',
  TOPIC_ALREADY_EXISTS: 'TOPIC_ALREADY_EXISTS',
  OFFSET_OUT_OF_RANGE: 'OFFSET_OUT_OF_RANGE',
  REQUEST_TIMED_OUT: 'REQUEST_TIMED_OUT',
  INVALID_REQUEST: 'INVALID_REQUEST',
  LEADER_NOT_AVAILABLE: 'BROKER_NOT_AVAILABLE',
  NOT_LEADER_FOR_PARTITION: 'BROKER_NOT_AVAILABLE',
  BROKER_NOT_AVAILABLE: 'BROKER_NOT_AVAILABLE',
  COORDINATOR_NOT_AVAILABLE: 'BROKER_NOT_AVAILABLE',
  GROUP_COORDINATOR_NOT_AVAILABLE: 'BROKER_NOT_AVAILABLE',
  NOT_COORDINATOR: 'BROKER_NOT_AVAILABLE',
  NOT_COORDINATOR_FOR_GROUP: 'BROKER_NOT_AVAILABLE',
  COORDINATOR_LOAD_IN_PROGRESS: 'BROKER_NOT_AVAILABLE',
  GROUP_LOAD_IN_PROGRESS: 'BROKER_NOT_AVAILABLE',
  // The other answers Kafka marks retriable while a broker is away or its partitions move: this
  // broker cannot serve the request now (not the leader of the epoch asked, a replica or a
  // listener missing, a fetch session lost, a log directory failing, a lost connection).
  REPLICA_NOT_AVAILABLE: 'BROKER_NOT_AVAILABLE',
  NETWORK_EXCEPTION: 'BROKER_NOT_AVAILABLE',
  NOT_CONTROLLER: 'BROKER_NOT_AVAILABLE',
  KAFKA_STORAGE_ERROR: 'BROKER_NOT_AVAILABLE',
  FETCH_SESSION_ID_NOT_FOUND: 'BROKER_NOT_AVAILABLE',
  INVALID_FETCH_SESSION_EPOCH: 'BROKER_NOT_AVAILABLE',
  LISTENER_NOT_FOUND: 'BROKER_NOT_AVAILABLE',
  FENCED_LEADER_EPOCH: 'BROKER_NOT_AVAILABLE',
  UNKNOWN_LEADER_EPOCH: 'BROKER_NOT_AVAILABLE',
  OFFSET_NOT_AVAILABLE: 'BROKER_NOT_AVAILABLE',
  PREFERRED_LEADER_NOT_AVAILABLE: 'BROKER_NOT_AVAILABLE',
  NOT_ENOUGH_REPLICAS: 'NOT_ENOUGH_REPLICAS',
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: 'NOT_ENOUGH_REPLICAS',
}

/** Protocol error codes kafkajs 2.2.4 does not know (it reports them as KAFKAJS_UNKNOWN_ERROR). */
const BY_PROTOCOL_CODE: Record<number, LogErrorCode> = { 90: 'PRODUCER_FENCED' }

const BROKER_NOT_CONNECTED = 'Broker not connected'

const CONNECTION_ERRORS = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSBrokerNotFound',
  'KafkaJSGroupCoordinatorNotFound',
  'KafkaJSMetadataNotLoaded',
])

function* chain(e: unknown, depth = 0): Generator<KafkajsErrorLike> {
  if (depth > 8 || e === null || typeof e !== 'object') return
  const err = e as KafkajsErrorLike
  yield err
  if (Array.isArray(err.errors)) for (const inner of err.errors) yield* chain(inner, depth + 1)
  if (err.cause !== undefined && err.cause !== e) yield* chain(err.cause, depth + 1)
}

/** What one walk of a kafkajs error's chain finds; the two questions below are both read from it. */
interface ErrorFacts {
  /** The first Kafka protocol error eoscope names, else a transport failure's code, else null. */
  code: LogErrorCode | null
  /** A broker sent a protocol error back somewhere in the chain. */
  brokerAnswered: boolean
  /** A connection failed or was lost, or a request timed out. */
  unreached: boolean
}

function factsOf(e: unknown): ErrorFacts {
  let code: LogErrorCode | null = null
  let fallback: LogErrorCode | null = null
  let brokerAnswered = false
  let unreached = false
  for (const err of chain(e)) {
    if (err.name === 'KafkaJSProtocolError' && err.type !== undefined && err.type !== '') brokerAnswered = true
    if (code === null && err.type && BY_PROTOCOL_TYPE[err.type]) code = BY_PROTOCOL_TYPE[err.type]!
    if (code === null && typeof err.code === 'number' && BY_PROTOCOL_CODE[err.code]) code = BY_PROTOCOL_CODE[err.code]!
    if (err.name === 'KafkaJSRequestTimeoutError' || err.name === 'KafkaJSTimeout') {
      fallback ??= 'REQUEST_TIMED_OUT'
      unreached = true
    }
    // kafkajs 2.2.4 throws a plain Error when a request reaches a broker object whose connection was
    // just lost and not yet re-established (broker/index.js notInitializedLookup): the request was
    // never sent. Its retrier does not retry a plain Error, so it surfaces as is.
    if ((err.name !== undefined && CONNECTION_ERRORS.has(err.name)) || err.message === BROKER_NOT_CONNECTED) {
      fallback ??= 'BROKER_NOT_AVAILABLE'
      unreached = true
    }
  }
  return { code: code ?? fallback, brokerAnswered, unreached }
}

/** The LogError code for a kafkajs error, or null when it is not one eoscope names. */
export function logErrorCode(e: unknown): LogErrorCode | null {
  return factsOf(e).code
}

/**
 * True when no broker answered: the connection failed or was lost, or the request timed out. An
 * error a broker sent back (any protocol error anywhere in the chain, such as NOT_LEADER right
 * after a restart) means the cluster answered, whatever else went wrong.
 */
export function noBrokerAnswered(e: unknown): boolean {
  const f = factsOf(e)
  return f.unreached && !f.brokerAnswered
}

/**
 * A LogError for a kafkajs error, named by the first Kafka protocol error in its chain; errors
 * eoscope has no code for are returned unchanged (a bug or a misuse should keep its own type).
 */
export function toLogError(e: unknown, what: string): unknown {
  if (e instanceof LogError) return e
  const code = logErrorCode(e)
  if (code === null) return e
  const message = e instanceof Error ? e.message : String(e)
  return new LogError(code, `${what}: ${message}`, { cause: e })
}

/** Runs a kafkajs call and rethrows its failure as a LogError where one applies. */
export async function mapErrors<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (e) {
    throw toLogError(e, what)
  }
}
