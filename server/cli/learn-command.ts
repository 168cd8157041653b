// `eoscope learn`: the Learn page's chapters headless, in order (lib/learn-chapters.ts). Each
// chapter runs its scenarios and holds when every expectation of each holds; chapter 1, which has
// no fault, runs a short run without faults and holds when every record went through the five
// steps once (each input record committed with exactly one output). Exit 0 when no claim failed
// (as eoscope scenario: a measured claim this machine cannot tell apart is said, not failed), 1
// otherwise, 2 on bad input.

import { LEARN_CHAPTERS, type LearnChapter } from '../../lib/learn-chapters.ts'
import { SETTINGS } from '../../lib/streams-config.ts'
import { runHeadless } from '../runs/headless-run.ts'
import { scenarioByName, type ScenarioResult } from '../lab/scenarios/index.ts'
import { BACKENDS, kafkaSecurityForCommand, parseBrokers } from './backend.ts'
import { type CommandSpec, type FlagValues, parseCommandLine, UsageError } from './flags.ts'
import { RUN, runOptionsOf } from './run-command.ts'
import { CLOCKS, runOn, runOnKafka } from './scenario-command.ts'

export const LEARN = {
  name: 'learn',
  summary: "the Learn page's chapters headless, in order: each runs its scenarios and says whether its claim held",
  flags: {
    chapter: {
      type: 'number',
      meaning: 'run this chapter only',
      range: { min: 1, max: LEARN_CHAPTERS.length },
      integer: true,
    },
    seed: { type: 'setting', setting: 'seed', default: SETTINGS.seed.default },
    json: { type: 'boolean', meaning: 'print one JSON object per chapter' },
    backend: { type: 'choice', choices: BACKENDS, default: 'embedded', meaning: 'the log' },
    brokers: { type: 'string', value: 'HOST:PORT[,HOST:PORT]', meaning: 'the Kafka cluster (--backend kafka)' },
    clock: {
      type: 'choice',
      choices: CLOCKS,
      default: 'virtual',
      meaning: "the scenarios' clock on the embedded log (see eoscope scenario --help); Kafka: the real clock",
    },
  },
  notes: [LEARN_CHAPTERS.map((c) => `  ${c.n} ${c.title}: ${c.claim}`).join('\n')],
} as const satisfies CommandSpec

type LearnFlags = FlagValues<(typeof LEARN)['flags']>

export interface ChapterResult {
  chapter: number
  title: string
  claim: string
  /** holds: every claim held; undecided: none failed, one could not be told apart here; failed. */
  verdict: 'holds' | 'undecided' | 'failed'
  /** Per scenario (or, for chapter 1, the run): what it showed. */
  checks: { name: string; passed: boolean; failing: string[]; undecided: string[]; conclusion: string }[]
}

const FIVE_STEPS_RECORDS = 300

/** Chapter 1 headless: a short run without faults; every committed input record has one output. */
async function fiveSteps(f: LearnFlags): Promise<ChapterResult['checks'][number]> {
  const argv = ['--records', String(FIVE_STEPS_RECORDS), '--rate', '100', '--seed', String(f.seed)]
  if (f.backend === 'kafka') argv.push('--backend', 'kafka', '--brokers', f.brokers ?? '')
  const line = parseCommandLine(RUN, argv)
  if (line.help) throw new Error('eoscope learn: the run of chapter 1 asked for help')
  const r = await runHeadless(runOptionsOf(line.flags))
  const failing = [
    r.completed ? '' : 'the run did not complete',
    r.lost === 0 ? '' : `${r.lost ?? 'unknown'} lost`,
    r.duplicates === 0 ? '' : `${r.duplicates ?? 'unknown'} duplicates`,
    r.outputRecords === r.records ? '' : `${r.outputRecords} outputs for ${r.records} records`,
  ].filter((x) => x !== '')
  return {
    name: 'run',
    passed: failing.length === 0,
    failing,
    undecided: [],
    conclusion: `${r.records} records, each consumed, processed, produced, acknowledged and committed once`,
  }
}

async function scenarioCheck(name: string, f: LearnFlags): Promise<ChapterResult['checks'][number]> {
  const scenario = scenarioByName(name)
  if (!scenario) throw new Error(`the Learn chapters name an unknown scenario: ${name}`)
  const r: ScenarioResult =
    f.backend === 'kafka'
      ? await runOnKafka(
          { brokers: parseBrokers(f.brokers), clientId: 'eoscope-learn', ...kafkaSecurityForCommand() },
          scenario,
          f.seed,
        )
      : await runOn(f.clock, scenario, f.seed)
  return {
    name,
    passed: r.passed,
    failing: r.expectations.filter((e) => !e.holds && e.undecided === undefined).map((e) => e.claim),
    undecided: r.expectations.flatMap((e) => (e.undecided === undefined ? [] : [`${e.claim}: ${e.undecided}`])),
    conclusion: r.conclusion,
  }
}

async function runChapter(c: LearnChapter, f: LearnFlags): Promise<ChapterResult> {
  const checks = []
  if (c.scenarios.length === 0) checks.push(await fiveSteps(f))
  for (const name of c.scenarios) checks.push(await scenarioCheck(name, f))
  const verdict = !checks.every((x) => x.passed)
    ? 'failed'
    : checks.some((x) => x.undecided.length > 0)
      ? 'undecided'
      : 'holds'
  return { chapter: c.n, title: c.title, claim: c.claim, verdict, checks }
}

const VERDICT_WORDS: Record<ChapterResult['verdict'], string> = {
  holds: 'holds',
  undecided: 'NOT SHOWN (not distinguishable here)',
  failed: 'DID NOT HOLD',
}

function checkWords(x: ChapterResult['checks'][number]): string {
  if (!x.passed) return 'a claim fails'
  return x.undecided.length > 0 ? 'no claim fails' : 'every claim holds'
}

export function chapterText(r: ChapterResult): string[] {
  return [
    `${r.chapter} ${r.title}: ${VERDICT_WORDS[r.verdict]}: ${r.claim}`,
    ...r.checks.flatMap((x) => [
      `    ${x.name}: ${checkWords(x)}`,
      ...x.failing.map((claim) => `      did not hold: ${claim}`),
      ...x.undecided.map((claim) => `      not distinguishable here: ${claim}`),
    ]),
  ]
}

export async function learnCommand(f: LearnFlags, out: (s: string) => void): Promise<number> {
  if (f.backend === 'embedded' && f.brokers !== undefined) throw new UsageError('--brokers needs --backend kafka')
  const chapters = f.chapter === undefined ? LEARN_CHAPTERS : LEARN_CHAPTERS.filter((c) => c.n === f.chapter)
  let held = true
  for (const c of chapters) {
    const r = await runChapter(c, f)
    held &&= r.verdict !== 'failed'
    if (f.json) out(JSON.stringify(r))
    else for (const line of chapterText(r)) out(line)
  }
  return held ? 0 : 1
}
