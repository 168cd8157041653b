// Kafka Streams configuration, under Kafka Streams' own names.
// Isomorphic: used by the engine, the lab, the CLI and the dashboard alike.

/**
 * The guarantees, weakest first. `at_most_once` is eoscope's teaching mode, not a Kafka Streams
 * setting: Streams offers only the other three; a plain consumer gets at-most-once by committing
 * its offsets before it processes (docs/configuration.md).
 */
export const PROCESSING_GUARANTEES = ['at_most_once', 'at_least_once', 'exactly_once', 'exactly_once_v2'] as const
export type ProcessingGuarantee = (typeof PROCESSING_GUARANTEES)[number]

/** The guarantees Kafka Streams itself offers as processing.guarantee values. */
export const KAFKA_STREAMS_GUARANTEES = ['at_least_once', 'exactly_once', 'exactly_once_v2'] as const

/** eoscope's teaching mode: not a value Kafka Streams accepts. */
export function isTeachingMode(guarantee: ProcessingGuarantee): boolean {
  return guarantee === 'at_most_once'
}

/** The one wording of what at_most_once is, for help text, controls and docs alike. */
export const AT_MOST_ONCE_NOTE =
  "eoscope's teaching mode, not a Kafka Streams setting: offsets are committed when polled, before processing"

/**
 * When a task commits its input offsets: after the broker acknowledged its output (at_least_once,
 * and with the output in one transaction under exactly-once), or as soon as it polled them, before
 * it processes and produces (at_most_once: a crash after the commit loses the polled records).
 */
export type OffsetCommitPoint = 'after-ack' | 'on-poll'

export function offsetCommitPointOf(guarantee: ProcessingGuarantee): OffsetCommitPoint {
  return guarantee === 'at_most_once' ? 'on-poll' : 'after-ack'
}

export const ISOLATION_LEVELS = ['read_committed', 'read_uncommitted'] as const
export type IsolationLevel = (typeof ISOLATION_LEVELS)[number]

export interface StreamsConfig {
  'application.id': string
  'processing.guarantee': ProcessingGuarantee
  'commit.interval.ms': number
  'transaction.timeout.ms': number
  'session.timeout.ms': number
  'heartbeat.interval.ms': number
  'enable.idempotence': boolean
  'isolation.level': IsolationLevel
  'max.poll.records': number
}

/** Kafka Streams' own defaults, shown beside eoscope's demo defaults. */
export const KAFKA_STREAMS_DEFAULTS = {
  // at_most_once is not a Streams setting: the figure is Streams' non-exactly-once default, for comparison.
  commitIntervalMs: { at_most_once: 30_000, at_least_once: 30_000, exactly_once: 100, exactly_once_v2: 100 } as Record<
    ProcessingGuarantee,
    number
  >,
  transactionTimeoutMs: 10_000, // Streams sets this for its transactional producers
  sessionTimeoutMs: 45_000, // consumer default since Kafka 3.0
  heartbeatIntervalMs: 3_000,
  maxPollRecords: 1_000,
} as const

/**
 * eoscope's defaults. Where they differ from Kafka Streams' they are demo-friendly and labelled so:
 * a 30 s commit interval and a 45 s session timeout would make a live lab look frozen.
 */
export const EOSCOPE_DEFAULTS = {
  // Under at_most_once offsets are committed at each poll; the interval only paces the empty checks.
  commitIntervalMs: { at_most_once: 1_000, at_least_once: 1_000, exactly_once: 100, exactly_once_v2: 100 } as Record<
    ProcessingGuarantee,
    number
  >,
  transactionTimeoutMs: 10_000,
  sessionTimeoutMs: 1_000,
  heartbeatIntervalMs: 200,
  maxPollRecords: 1_000,
} as const

// ---- the settings table -----------------------------------------------------------------------
// Every setting and command argument with a range, once: its meaning, its default and where it
// may go. The zod schemas of the lab protocol (REST, socket), the sweep's, the CLI's flags and
// validateStreamsConfig all read their bounds here, and word a bad value with settingProblem.

/** Whether a number must be whole: a setting's spec or a flag's says so. */
export interface NumberKind {
  readonly integer: boolean
}

export interface Range {
  readonly min: number
  /** Infinity: unbounded above. */
  readonly max: number
  /** Whole numbers only here, whatever the setting's kind elsewhere (absent: the setting's `integer`). */
  readonly integer?: boolean
}

/**
 * Where a value is set. `run`: a headless run, a worker, a Kafka config (what validateStreamsConfig
 * accepts). `lab`: the dashboard's live lab, narrower so that the view stays readable. `sweep`: the
 * commit-interval experiment, narrower so that a sweep ends in reasonable time.
 */
export type SettingContext = 'run' | 'lab' | 'sweep'

export interface SettingSpec {
  readonly meaning: string
  readonly integer: boolean
  /** eoscope's default; per guarantee where it depends on it; null: none (the feature is off). */
  readonly default: number | Readonly<Record<ProcessingGuarantee, number>> | null
  /** How the default reads where a number alone does not say it. */
  readonly defaultText?: string
  /** `run` always; a context not listed uses the `run` range. */
  readonly ranges: { readonly run: Range } & Partial<Record<Exclude<SettingContext, 'run'>, Range>>
}

const MAX_SEED = 2 ** 31 - 1
const MAX_PARTITIONS = 256

export const SETTINGS = {
  'commit.interval.ms': {
    meaning: 'how often a task commits its input offsets (under exactly-once: its transaction), in ms',
    integer: true,
    default: EOSCOPE_DEFAULTS.commitIntervalMs,
    ranges: { run: { min: 1, max: 600_000 }, lab: { min: 10, max: 30_000 }, sweep: { min: 1, max: 30_000 } },
  },
  'transaction.timeout.ms': {
    meaning:
      'how long the coordinator lets a transaction stay open before it aborts it, in ms (broker cap ' +
      'transaction.max.timeout.ms)',
    integer: true,
    default: EOSCOPE_DEFAULTS.transactionTimeoutMs,
    ranges: { run: { min: 1, max: 900_000 }, lab: { min: 100, max: 900_000 } },
  },
  'session.timeout.ms': {
    meaning: 'how long the group waits for a heartbeat before it evicts a member, in ms',
    integer: true,
    default: EOSCOPE_DEFAULTS.sessionTimeoutMs,
    ranges: { run: { min: 10, max: 1_800_000 }, lab: { min: 100, max: 60_000 } },
  },
  'heartbeat.interval.ms': {
    meaning: 'how often a member heartbeats, in ms (at most a third of session.timeout.ms)',
    integer: true,
    default: EOSCOPE_DEFAULTS.heartbeatIntervalMs,
    ranges: { run: { min: 1, max: 1_800_000 } },
  },
  'max.poll.records': {
    meaning: 'records one poll returns at most',
    integer: true,
    default: EOSCOPE_DEFAULTS.maxPollRecords,
    ranges: { run: { min: 1, max: 100_000 } },
  },
  inputRatePerSec: {
    meaning: 'input records per second fed by the load generator (the live lab: 0 stops the input)',
    integer: false,
    default: 500,
    // The live lab feeds whole records a second (0.001 would be one record in 17 minutes).
    ranges: { run: { min: 0.001, max: Number.POSITIVE_INFINITY }, lab: { min: 0, max: 200_000, integer: true } },
  },
  workers: {
    meaning: 'stream worker instances, each with its tasks',
    integer: true,
    default: 3,
    ranges: { run: { min: 1, max: 64 }, lab: { min: 1, max: 12 } },
  },
  partitions: {
    meaning: 'partitions of the input topic, hence tasks',
    integer: true,
    default: 6,
    ranges: { run: { min: 1, max: MAX_PARTITIONS } },
  },
  partition: {
    meaning: 'a partition number',
    integer: true,
    default: 0,
    ranges: { run: { min: 0, max: MAX_PARTITIONS - 1 } },
  },
  records: {
    meaning: 'input records fed through the run',
    integer: true,
    default: 100_000,
    ranges: { run: { min: 1, max: 100_000_000 } },
  },
  seed: {
    meaning: 'seed of every random choice (keys, fault schedule)',
    integer: true,
    default: 1,
    ranges: { run: { min: 0, max: MAX_SEED } },
  },
  killEveryMs: {
    meaning: 'kill a worker abruptly every this many ms (no flush, commit, abort or leave-group)',
    integer: true,
    default: null,
    defaultText: 'no kills',
    ranges: { run: { min: 1, max: Number.POSITIVE_INFINITY } },
  },
  killAtStep: {
    meaning:
      'the step of the five (1 consume, 2 process, 3 produce, 4 broker ack, 5 commit) at which a killed worker dies',
    integer: true,
    default: null,
    defaultText: 'wherever the worker is',
    ranges: { run: { min: 1, max: 5 } },
  },
  restartAfterMs: {
    meaning: 'replace a killed worker after this many ms',
    integer: true,
    default: 0,
    ranges: { run: { min: 0, max: Number.POSITIVE_INFINITY } },
  },
  dropAcks: {
    meaning: 'produce acknowledgements the broker loses after appending (the producer retries)',
    integer: true,
    default: 0,
    ranges: { run: { min: 0, max: 100_000 }, lab: { min: 1, max: 1_000 } },
  },
  poisonRecords: {
    meaning: 'input records whose values do not parse',
    integer: true,
    default: 1,
    ranges: { run: { min: 1, max: 100 } },
  },
  sweepIntervals: {
    meaning: 'commit intervals one sweep measures',
    integer: true,
    default: 9,
    ranges: { run: { min: 1, max: 12 } },
  },
  sweepRepeat: {
    meaning: 'repetitions of each cell (guarantee × commit interval)',
    integer: true,
    default: 3,
    ranges: { run: { min: 1, max: 10 } },
  },
  // 9: the fewest runs whose 95% interval leaves out the extreme runs (ranks 2 and n − 1; up to 8 it is [min, max]).
  sweepMaxRuns: {
    meaning:
      'runs of a cell at most while its 95% intervals are wider than ±10% of the median (the cells are run in ' +
      'turn until each is precise or at this cap)',
    integer: true,
    default: 9,
    ranges: { run: { min: 1, max: 30 } },
  },
} as const satisfies Record<string, SettingSpec>

export type SettingName = keyof typeof SETTINGS

/** A setting's range where it is set. */
export function rangeOf(name: SettingName, context: SettingContext = 'run'): Range {
  const ranges: SettingSpec['ranges'] = SETTINGS[name].ranges
  return ranges[context] ?? ranges.run
}

/** "an integer from 1 to 5", "a number of at least 0.001". */
export function describeRange(range: Range, number: NumberKind): string {
  const kind = (range.integer ?? number.integer) ? 'an integer' : 'a number'
  return range.max === Number.POSITIVE_INFINITY
    ? `${kind} of at least ${range.min}`
    : `${kind} from ${range.min} to ${range.max}`
}

/** A value as an error message quotes it: numbers as they are, anything else as JSON, cut short. */
export function shownValue(value: unknown): string {
  if (typeof value === 'number') return String(value)
  if (value === undefined) return 'nothing'
  const json = JSON.stringify(value) ?? String(value)
  return json.length > 40 ? `${json.slice(0, 37)}...` : json
}

/** The one wording of a value out of a range or of the wrong type. */
export function rangeProblem(range: Range, number: NumberKind, value: unknown): string {
  return `must be ${describeRange(range, number)}; got ${shownValue(value)}`
}

/** A bad value for a setting where it is set, worded alike by the CLI, REST and the socket. */
export function settingProblem(name: SettingName, context: SettingContext, value: unknown): string {
  return rangeProblem(rangeOf(name, context), SETTINGS[name], value)
}

/** The one wording of a value outside a list of choices. */
export function choiceProblem(choices: readonly string[], value: unknown): string {
  return `must be one of ${choices.join(', ')}; got ${shownValue(value)}`
}

/** Whether a value is acceptable for a setting where it is set. */
export function inRange(name: SettingName, context: SettingContext, value: unknown): value is number {
  const r = rangeOf(name, context)
  if (typeof value !== 'number' || !Number.isFinite(value)) return false
  if ((r.integer ?? SETTINGS[name].integer) && !Number.isInteger(value)) return false
  return value >= r.min && value <= r.max
}

/** A setting's default as help text shows it. */
export function defaultText(name: SettingName): string {
  const s: SettingSpec = SETTINGS[name]
  if (s.defaultText !== undefined) return s.defaultText
  if (s.default === null) return 'none'
  if (typeof s.default === 'number') return String(s.default)
  const byGuarantee = s.default
  const values = [...new Set(PROCESSING_GUARANTEES.map((g) => byGuarantee[g]))]
  return values
    .map((v) => `${v} under ${PROCESSING_GUARANTEES.filter((g) => byGuarantee[g] === v).join(' and ')}`)
    .join(', ')
}

export function defaultStreamsConfig(
  guarantee: ProcessingGuarantee = 'exactly_once',
  applicationId = 'eoscope',
): StreamsConfig {
  return {
    'application.id': applicationId,
    'processing.guarantee': guarantee,
    'commit.interval.ms': EOSCOPE_DEFAULTS.commitIntervalMs[guarantee],
    'transaction.timeout.ms': EOSCOPE_DEFAULTS.transactionTimeoutMs,
    'session.timeout.ms': EOSCOPE_DEFAULTS.sessionTimeoutMs,
    'heartbeat.interval.ms': EOSCOPE_DEFAULTS.heartbeatIntervalMs,
    'enable.idempotence': true,
    'isolation.level': isExactlyOnce(guarantee) ? 'read_committed' : 'read_uncommitted',
    'max.poll.records': EOSCOPE_DEFAULTS.maxPollRecords,
  }
}

/** What a run, a scenario or a worker may set beyond the defaults. */
export interface StreamsOverrides {
  applicationId?: string
  commitIntervalMs?: number
  transactionTimeoutMs?: number
  sessionTimeoutMs?: number
  /** Only under at_least_once and at_most_once: exactly-once forces it on. */
  idempotence?: boolean
  maxPollRecords?: number
}

/**
 * The defaults for a guarantee with overrides applied (not yet validated). A shorter
 * session.timeout.ms brings heartbeat.interval.ms down to a third of it, as Kafka advises.
 */
export function streamsConfigFor(guarantee: ProcessingGuarantee, o: StreamsOverrides = {}): StreamsConfig {
  const c = defaultStreamsConfig(guarantee, o.applicationId)
  if (o.commitIntervalMs !== undefined) c['commit.interval.ms'] = o.commitIntervalMs
  if (o.transactionTimeoutMs !== undefined) c['transaction.timeout.ms'] = o.transactionTimeoutMs
  if (o.sessionTimeoutMs !== undefined) {
    c['session.timeout.ms'] = o.sessionTimeoutMs
    c['heartbeat.interval.ms'] = Math.max(1, Math.min(c['heartbeat.interval.ms'], Math.floor(o.sessionTimeoutMs / 3)))
  }
  if (o.maxPollRecords !== undefined) c['max.poll.records'] = o.maxPollRecords
  if (o.idempotence !== undefined && !isExactlyOnce(guarantee)) c['enable.idempotence'] = o.idempotence
  return c
}

/** Whether output, changelog and offsets commit in one transaction (exactly_once, exactly_once_v2). */
export function isExactlyOnce(guarantee: ProcessingGuarantee): boolean {
  return guarantee === 'exactly_once' || guarantee === 'exactly_once_v2'
}

export class ConfigException extends Error {
  readonly name = 'ConfigException'
  constructor(
    readonly config: string,
    readonly value: unknown,
    reason: string,
  ) {
    // Kafka's own message shape: "Invalid value X for configuration Y: reason"
    super(`Invalid value ${JSON.stringify(value)} for configuration ${config}: ${reason}`)
  }
}

/** The numeric Kafka settings validateStreamsConfig bounds, with their range in a run (Kafka's rules). */
export const CONFIG_BOUNDS = {
  'commit.interval.ms': SETTINGS['commit.interval.ms'].ranges.run,
  'transaction.timeout.ms': SETTINGS['transaction.timeout.ms'].ranges.run,
  'session.timeout.ms': SETTINGS['session.timeout.ms'].ranges.run,
  'heartbeat.interval.ms': SETTINGS['heartbeat.interval.ms'].ranges.run,
  'max.poll.records': SETTINGS['max.poll.records'].ranges.run,
} as const

/**
 * Validates a complete config with Kafka's rules: returns it, or throws ConfigException.
 * Pure: it never changes its argument.
 */
export function validateStreamsConfig(config: StreamsConfig): StreamsConfig {
  if (typeof config['application.id'] !== 'string' || !/^[A-Za-z0-9._-]{1,200}$/.test(config['application.id'])) {
    throw new ConfigException('application.id', config['application.id'], 'must be 1-200 characters of [A-Za-z0-9._-]')
  }
  if (!PROCESSING_GUARANTEES.includes(config['processing.guarantee'])) {
    throw new ConfigException(
      'processing.guarantee',
      config['processing.guarantee'],
      `String must be one of: ${PROCESSING_GUARANTEES.join(', ')}`,
    )
  }
  if (!ISOLATION_LEVELS.includes(config['isolation.level'])) {
    throw new ConfigException(
      'isolation.level',
      config['isolation.level'],
      `String must be one of: ${ISOLATION_LEVELS.join(', ')}`,
    )
  }
  if (typeof config['enable.idempotence'] !== 'boolean') {
    throw new ConfigException(
      'enable.idempotence',
      config['enable.idempotence'],
      'Expected value to be either true or false',
    )
  }
  for (const [name, { min, max }] of Object.entries(CONFIG_BOUNDS) as [
    keyof typeof CONFIG_BOUNDS,
    { min: number; max: number },
  ][]) {
    const v = config[name]
    if (typeof v !== 'number' || !Number.isInteger(v)) throw new ConfigException(name, v, 'Expected an integer')
    if (v < min || v > max) throw new ConfigException(name, v, `Value must be in [${min}, ${max}]`)
  }
  if (config['heartbeat.interval.ms'] >= config['session.timeout.ms']) {
    throw new ConfigException(
      'heartbeat.interval.ms',
      config['heartbeat.interval.ms'],
      'must be lower than session.timeout.ms',
    )
  }
  const guarantee = config['processing.guarantee']
  if (isExactlyOnce(guarantee)) {
    // Streams forces these for exactly-once and refuses a user override.
    if (!config['enable.idempotence']) {
      throw new ConfigException(
        'enable.idempotence',
        false,
        `Cannot set enable.idempotence to false when processing.guarantee is ${guarantee}`,
      )
    }
    if (config['isolation.level'] !== 'read_committed') {
      throw new ConfigException(
        'isolation.level',
        config['isolation.level'],
        `must be read_committed when processing.guarantee is ${guarantee}`,
      )
    }
    // StreamsConfig: "transaction.timeout.ms should be greater than commit.interval.ms" (KIP-447 era check).
    if (config['transaction.timeout.ms'] < config['commit.interval.ms']) {
      throw new ConfigException(
        'transaction.timeout.ms',
        config['transaction.timeout.ms'],
        `transaction.timeout.ms (${config['transaction.timeout.ms']}) must not be lower than ` +
          `commit.interval.ms (${config['commit.interval.ms']}) when processing.guarantee is ${guarantee}`,
      )
    }
  }
  return config
}

/** Applies a partial change, then validates; the input config is never changed. */
export function withConfigChange(config: StreamsConfig, change: Partial<StreamsConfig>): StreamsConfig {
  const next: StreamsConfig = { ...config, ...change }
  if (change['processing.guarantee'] && change['processing.guarantee'] !== config['processing.guarantee']) {
    const g = change['processing.guarantee']
    if (isExactlyOnce(g)) {
      if (change['enable.idempotence'] === undefined) next['enable.idempotence'] = true
      if (change['isolation.level'] === undefined) next['isolation.level'] = 'read_committed'
    }
  }
  return validateStreamsConfig(next)
}
