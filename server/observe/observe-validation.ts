// The validator on an observed application's topics, when `eoscope observe` is told their record
// format: eoscope's incremental validator (server/validator/incremental-validator.ts) reads the
// input up to the group's committed offsets and the output and changelog as a read_committed
// consumer would, recomputes every key's aggregate in input offset order, and counts duplicates,
// lost records, aborted reads and state mismatches as docs/measures.md defines them. Each sample reads
// only what is new since the previous one. Read-only, like the rest of observe.
//
// Which guarantee the figures are judged against is read from the application itself: Kafka
// Streams gives its producers transactional ids named after the application only under
// exactly_once(_v2), so an application with such ids is judged exactly-once, one without
// at-least-once (nothing lost; duplicates and mismatches counted, not violations). Open
// transactions are not judged: a running application always has some.

import { type ValidationReport, type ValidationRow, violations } from '../validator/report.ts'
import { IncrementalValidator } from '../validator/incremental-validator.ts'
import type { LogInspector } from '../log/types.ts'
import type { ObservedValidationView } from '../../lib/observe-protocol.ts'

export const RECORD_FORMATS = ['eoscope'] as const
export type RecordFormat = (typeof RECORD_FORMATS)[number]

export const RECORD_FORMAT_MEANING: Record<RecordFormat, string> = {
  eoscope:
    'input values are integers as decimal text, keyed; each input record gives one output and one changelog ' +
    "record whose value is its key's running aggregate as JSON: " +
    '{key,count,sum,min,max,source:{partition,offset}} (lib/records.ts)',
}

export interface ValidationTarget {
  format: RecordFormat
  input: string
  output: string
  /** The state store's changelog; null: none is compared. */
  changelog: string | null
  /** The dead-letter topic for inputs that do not parse; null: the application skips them. */
  deadLetter: string | null
}

/** The rows a live application is judged on (open transactions are normal while it runs). */
const JUDGED_ROWS: readonly ValidationRow[] = ['duplicates', 'lost', 'abortedReads', 'stateMismatches']
/** A topic name Kafka cannot have (the space): with it the validator finds no changelog and compares none. */
const NO_CHANGELOG = 'no changelog'

/** The wire view (lib/observe-protocol.ts), with the validator's own types for its rows. */
export interface ObservedValidation extends Omit<ObservedValidationView, 'format'>, ValidationTarget {
  judgedAs: ObservedValidationView['judgedAs']
  /** Rows over 0 that the guarantee forbids. */
  violations: { row: ValidationRow; value: number }[]
  /** Rows that could not be computed, with why. */
  unavailable: ValidationReport['unavailable']
}

export function parseRecordFormat(s: string): RecordFormat {
  const f = RECORD_FORMATS.find((x) => x === s)
  if (!f)
    throw new RangeError(
      `record format ${JSON.stringify(s)} is not one eoscope can validate; known: ${RECORD_FORMATS.join(', ')}`,
    )
  return f
}

export class ObserveValidation {
  private readonly validator: IncrementalValidator

  constructor(
    inspector: Pick<LogInspector, 'topics' | 'offsets' | 'readRaw' | 'committedOffsets'>,
    readonly applicationId: string,
    readonly target: ValidationTarget,
  ) {
    // An observed application shares its cluster: only its own topics' open transactions count.
    const shared: LogInspector = { ...bound(inspector), sharedCluster: true }
    this.validator = new IncrementalValidator(shared, {
      groupId: applicationId,
      inputTopic: target.input,
      outputTopic: target.output,
      changelogTopic: target.changelog ?? NO_CHANGELOG,
      dlqTopic: target.deadLetter,
    })
  }

  /**
   * Reads what is new and judges it: exactly-once when the application's
   * producers have transactional ids named after it.
   */
  async check(judgedAs: ObservedValidationView['judgedAs']): Promise<ObservedValidation> {
    const r = await this.validator.check()
    const because =
      judgedAs === 'exactly-once'
        ? `its producers have transactional ids named after ${this.applicationId} (processing.guarantee ` +
          `exactly_once or exactly_once_v2)`
        : `no transactional id is named after ${this.applicationId} (processing.guarantee at_least_once): only ` +
          `lost records break it`
    return {
      ...this.target,
      judgedAs,
      because,
      inputRecords: r.inputRecords,
      outputRecords: r.outputRecords,
      duplicates: r.duplicates,
      lost: r.lost,
      abortedReads: r.abortedReads,
      stateMismatches: r.stateMismatches,
      violations: violations(r, judgedAs).filter(
        (v): v is { row: ValidationRow; value: number } =>
          JUDGED_ROWS.includes(v.row) && v.value !== null && v.value > 0,
      ),
      unavailable: r.unavailable,
      notes: r.notes.map((n) =>
        n.includes(NO_CHANGELOG) ? 'no changelog given: state is checked on the output records only' : n,
      ),
    }
  }
}

function bound(i: Pick<LogInspector, 'topics' | 'offsets' | 'readRaw' | 'committedOffsets'>) {
  return {
    topics: () => i.topics(),
    offsets: (tp: Parameters<LogInspector['offsets']>[0]) => i.offsets(tp),
    readRaw: (...a: Parameters<LogInspector['readRaw']>) => i.readRaw(...a),
    committedOffsets: (groupId: string) => i.committedOffsets(groupId),
  }
}
