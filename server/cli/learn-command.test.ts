import { describe, expect, it } from 'vitest'
import { parseCommandLine, UsageError } from './flags.ts'
import { LEARN_CHAPTERS } from '../../lib/learn-chapters.ts'
import { type ChapterResult, chapterText, LEARN, learnCommand } from './learn-command.ts'
import { RUN, runOptionsOf } from './run-command.ts'

function flagsOf(argv: string[]) {
  const line = parseCommandLine(LEARN, argv)
  if (line.help) throw new Error('expected flags, got --help')
  return line.flags
}

describe('eoscope learn', () => {
  it('runs every chapter in virtual time and each claim holds (the Learn page, headless), exit 0', async () => {
    const results: ChapterResult[] = []
    const code = await learnCommand(flagsOf(['--json']), (s) => results.push(JSON.parse(s)))
    expect(code).toBe(0)
    expect(results.map((r) => r.chapter)).toEqual(LEARN_CHAPTERS.map((c) => c.n))
    for (const r of results) expect(r.verdict, chapterText(r).join('\n')).toBe('holds')
    // Each chapter ran what the page's button runs: its scenarios, or chapter 1's traced run.
    expect(results.map((r) => r.checks.map((x) => x.name))).toEqual(
      LEARN_CHAPTERS.map((c) => (c.scenarios.length === 0 ? ['run'] : [...c.scenarios])),
    )
    const second = results.find((r) => r.chapter === 2)
    if (!second) throw new Error('chapter 2 missing')
    expect(chapterText(second)).toEqual([
      '2 Three semantics: holds: at_most_once lost records, at_least_once duplicated them, exactly_once did neither',
      '    crash-after-commit: every claim holds',
      '    crash-before-commit: every claim holds',
      '    crash-before-commit-eos: every claim holds',
    ])
  }, 300_000)

  it('prints a failed chapter as DID NOT HOLD with the claim that failed', () => {
    const failed: ChapterResult = {
      chapter: 3,
      title: 'A lost ack',
      claim: 'the claim',
      verdict: 'failed',
      checks: [{ name: 'lost-ack', passed: false, failing: ['no duplicate'], undecided: [], conclusion: '' }],
    }
    expect(chapterText(failed)).toEqual([
      '3 A lost ack: DID NOT HOLD: the claim',
      '    lost-ack: a claim fails',
      '      did not hold: no duplicate',
    ])
  })

  it('refuses a chapter that does not exist and brokers without Kafka', async () => {
    expect(() => flagsOf(['--chapter', '8'])).toThrow(/--chapter: must be an integer from 1 to 7/)
    await expect(learnCommand(flagsOf(['--brokers', 'x:1']), () => {})).rejects.toThrow(UsageError)
  })

  it('--idempotence off is refused under exactly-once and taken under at_most_once', () => {
    const line = parseCommandLine(RUN, ['--guarantee', 'at_most_once', '--idempotence', 'off'])
    if (line.help) throw new Error('expected flags')
    expect(runOptionsOf(line.flags).idempotence).toBe(false)
    const eos = parseCommandLine(RUN, ['--guarantee', 'exactly_once', '--idempotence', 'off'])
    if (eos.help) throw new Error('expected flags')
    expect(() => runOptionsOf(eos.flags)).toThrow(/only allowed with --guarantee at_least_once or at_most_once/)
  })
})
