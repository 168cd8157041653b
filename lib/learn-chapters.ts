// The Learn path: the argument of exactly-once stream processing in its order, one chapter a screen.
// Each chapter names the live view that shows its point and the scenarios that check its claim on
// the lab (a chapter holds when every one of its scenarios' expectations held, as their evidence
// cards say). The dashboard's /learn page and `eoscope learn` read the same table.

import type { EvidenceCard } from './evidence.ts'

/** The live view a chapter shows beside its text. */
export type LearnView = 'pipeline' | 'semantics' | 'lost-ack' | 'replay' | 'transactions' | 'zombie' | 'price'

export interface LearnChapter {
  /** 1-based, as in the URL (?chapter=N). */
  n: number
  title: string
  /** A few sentences: the point of the chapter. */
  text: readonly string[]
  view: LearnView
  /** The scenarios its button runs, in order; empty: the chapter checks the live lab itself. */
  scenarios: readonly string[]
  /** The button's words. */
  action: string
  /** The claim, checked on what the lab did. */
  claim: string
}

export const LEARN_CHAPTERS: readonly LearnChapter[] = [
  {
    n: 1,
    title: 'The five steps',
    text: [
      'A stateful stream processor does five steps per record: it consumes the record from the input topic, ' +
        'processes it and updates its state store, produces the result to the output topic, receives the ' +
        "broker's ack, and commits the input offset.",
      'At 1 record/s you can follow one record through them; the trace below lists each step as the worker ' +
        'reached it.',
    ],
    view: 'pipeline',
    scenarios: [],
    action: 'Slow the lab to 1 record/s',
    claim: 'a record went through all five steps, consume to commit',
  },
  {
    n: 2,
    title: 'Three semantics',
    text: [
      'Where the offset commit falls decides what a crash does. Commit before processing (at-most-once) and a ' +
        'crash loses the records in flight. Commit after the ack (at-least-once) and a crash makes the next ' +
        'owner redo them: duplicates. Commit them with the output in one transaction (exactly-once) and neither.',
      "The same kill under each: at_most_once is eoscope's teaching mode, not a Kafka Streams setting; a plain " +
        'consumer gets it by committing first.',
    ],
    view: 'semantics',
    scenarios: ['crash-after-commit', 'crash-before-commit', 'crash-before-commit-eos'],
    action: 'Run the same kill under each guarantee',
    claim: 'at_most_once lost records, at_least_once duplicated them, exactly_once did neither',
  },
  {
    n: 3,
    title: 'A lost ack',
    text: [
      'Step 4 can fail after the broker appended the batch: the ack is lost and the producer sends the same ' +
        'batch again. Without idempotence the retry writes it twice.',
      'With enable.idempotence the broker knows the batch by producer id, epoch and sequence number, and drops ' +
        'the retry.',
    ],
    view: 'lost-ack',
    scenarios: ['lost-ack'],
    action: 'Lose an ack, with and without idempotence',
    claim: 'the retry was written twice without idempotence and once with it',
  },
  {
    n: 4,
    title: 'A crash between produce and commit',
    text: [
      'A worker that dies after its output was acknowledged and before it committed its offsets leaves a replay ' +
        'window: the records between the last commit and the crash.',
      'Under at_least_once the next owner starts from the last commit and redoes that window; each duplicate ' +
        'traces back to it, and the redone updates inflate the state.',
    ],
    view: 'replay',
    scenarios: ['crash-before-commit'],
    action: 'Kill a worker between its ack and its commit',
    claim: 'every duplicate came from the replay window of the kill',
  },
  {
    n: 5,
    title: 'Exactly-once: three writes, one transaction',
    text: [
      'Three writes must be atomic: the output records, the changelog records of the state, and the input ' +
        'offsets. Kafka Streams makes them one transaction; the idempotent producer deduplicates retries inside it.',
      'The same crash leaves the transaction open: the new owner fences it (ABORT markers) and restores its state ' +
        'from the committed changelog. A read_committed reader never sees the aborted records; read_uncommitted does.',
    ],
    view: 'transactions',
    scenarios: ['crash-before-commit-eos', 'isolation'],
    action: 'Crash under exactly_once; compare isolation levels',
    claim: 'the open transaction was aborted and nothing became visible twice; read_committed skipped the aborted',
  },
  {
    n: 6,
    title: 'Zombies',
    text: [
      'A worker that stalls past its session is replaced, but it may wake up and write on. It is a zombie, and ' +
        'exactly-once must fence it.',
      'Under exactly_once the new owner bumps the producer epoch of the task’s transactional.id; under ' +
        "exactly_once_v2 the group generation on the zombie's offset commit refuses it.",
    ],
    view: 'zombie',
    scenarios: ['zombie'],
    action: 'Pause a worker past its session, then wake it',
    claim: 'the zombie was fenced and nothing it wrote became visible',
  },
  {
    n: 7,
    title: 'The price',
    text: [
      'commit.interval.ms trades throughput against recovery: a longer interval pays the commit’s fixed costs ' +
        'less often, and leaves more records to redo after a crash.',
      'The scenario kills a worker at 100 ms and at 5000 ms; the Experiments page sweeps the interval, from the ' +
        'model and from a measurement, with its reading guide.',
    ],
    view: 'price',
    scenarios: ['commit-interval'],
    action: 'Kill at 100 ms and at 5000 ms',
    claim: 'the longer interval ran faster and redid more records after the kill',
  },
]

/** The chapter a URL's ?chapter= names: 1 when absent or not a chapter's number. */
export function chapterNumber(param: string | null | undefined): number {
  const n = Number(param)
  return Number.isInteger(n) && n >= 1 && n <= LEARN_CHAPTERS.length ? n : 1
}

/**
 * undecided: no claim failed, but one could not be told apart on this machine (a measured claim
 * whose intervals overlap, as the scenario says): the chapter's claim is not shown to hold.
 */
export type ChapterState = 'not-run' | 'running' | 'holds' | 'undecided' | 'failed'

export interface ChapterVerdict {
  state: ChapterState
  /** The claims of its scenarios that did not hold, in the scenarios' words. */
  failing: string[]
  /** The claims that could not be told apart here, each with why. */
  undecided: string[]
  /** The scenarios not run yet. */
  missing: string[]
}

/** The latest evidence card of a scenario, or null. */
export function latestCard(cards: readonly EvidenceCard[], name: string): EvidenceCard | null {
  let latest: EvidenceCard | null = null
  for (const c of cards) if (c.name === name && (latest === null || c.endedAtMs >= latest.endedAtMs)) latest = c
  return latest
}

/**
 * A chapter's claim as its scenarios' latest evidence cards tell it: it holds when every scenario
 * ran and every expectation of each held; it failed when one of them failed or stopped by an error.
 */
export function scenarioVerdict(
  scenarios: readonly string[],
  cards: readonly EvidenceCard[],
  running: string | null,
): ChapterVerdict {
  const failing: string[] = []
  const undecided: string[] = []
  const missing: string[] = []
  for (const name of scenarios) {
    const card = latestCard(cards, name)
    if (card === null) {
      missing.push(name)
      continue
    }
    for (const e of card.expectations) {
      if (e.undecided !== undefined) undecided.push(`${name}: ${e.claim}: ${e.undecided}`)
      else if (!e.holds) failing.push(`${name}: ${e.claim}`)
    }
    if (card.status === 'error') failing.push(`${name}: stopped by an error${card.error ? ` (${card.error})` : ''}`)
  }
  const state: ChapterState =
    running !== null && scenarios.includes(running)
      ? 'running'
      : failing.length > 0
        ? 'failed'
        : missing.length > 0
          ? 'not-run'
          : undecided.length > 0
            ? 'undecided'
            : 'holds'
  return { state, failing, undecided, missing }
}

/** Chapter 1's claim on the live lab: a traced record reached step 5 after steps 1 to 4. */
export function followedThroughFiveSteps(traces: readonly { steps: readonly { step: number }[] }[]): boolean {
  return traces.some((t) => [1, 2, 3, 4, 5].every((s) => t.steps.some((x) => x.step === s)))
}
