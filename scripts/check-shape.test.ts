import { describe, expect, it } from 'vitest'
import { checkSource, longLines, MAX_FUNCTION_LINES, MAX_LINE_CHARS } from './check-shape.mjs'

const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i}`).join('\n')

describe('check-shape', () => {
  it('passes a small file with short functions and typed choices', () => {
    const r = checkSource(
      'ok.ts',
      `type Close = 'clean' | 'dirty'\nexport function close(p: number, how: Close) {\n  return [p, how]\n}\n`,
    )
    expect(r.offences).toEqual([])
  })

  it('flags a function longer than the limit, with its name and line', () => {
    const r = checkSource('long.ts', `\nexport function tooLong() {\n${body(MAX_FUNCTION_LINES)}\n}\n`)
    expect(r.offences).toEqual([
      `long.ts:2: function tooLong has ${MAX_FUNCTION_LINES + 2} lines (at most ${MAX_FUNCTION_LINES})`,
    ])
  })

  it('flags long methods and arrow functions too', () => {
    const r = checkSource(
      'm.ts',
      `class A {\n  run() {\n${body(MAX_FUNCTION_LINES)}\n  }\n}\nconst f = () => {\n${body(MAX_FUNCTION_LINES)}\n}\n`,
    )
    expect(r.offences.map((o: string) => o.split(': ')[1])).toEqual([
      `function run has ${MAX_FUNCTION_LINES + 2} lines (at most ${MAX_FUNCTION_LINES})`,
      `function f has ${MAX_FUNCTION_LINES + 2} lines (at most ${MAX_FUNCTION_LINES})`,
    ])
  })

  it('flags boolean flag parameters, typed or defaulted', () => {
    const r = checkSource(
      'flags.ts',
      `export function closeTask(p: number, clean: boolean) {}\nexport const endTxn = (id: string, commit = ` +
        `true) => id\n`,
    )
    expect(r.offences).toEqual([
      'flags.ts:1: boolean parameter clean of closeTask (name the choice with a type)',
      'flags.ts:2: boolean parameter commit of endTxn (name the choice with a type)',
    ])
  })

  it('reads TSX', () => {
    const r = checkSource('c.tsx', `export function Panel({ n }: { n: number }) {\n  return <div>{n}</div>\n}\n`)
    expect(r.offences).toEqual([])
  })
})

describe('check-shape imports', () => {
  it('refuses lib/ importing server/ and node built-ins, components/ importing server/', () => {
    expect(
      checkSource('lib/a.ts', `import { x } from '../server/http/live-delta.ts'\nexport const y = x\n`).offences,
    ).toEqual(['lib/a.ts:1: lib/ may not import server/ (imports ../server/http/live-delta.ts)'])
    expect(
      checkSource('lib/b.ts', `import { readFileSync } from 'node:fs'\nexport const r = readFileSync\n`).offences,
    ).toHaveLength(1)
    expect(
      checkSource('components/c.tsx', `import type { L } from '../server/lab/lab.ts'\nexport type M = L\n`).offences,
    ).toHaveLength(1)
    expect(
      checkSource('server/engine/w.ts', `export { Step } from '../../lib/lab-protocol.ts'\n`).offences,
    ).toHaveLength(1)
  })

  it('lets each room import what it may', () => {
    expect(
      checkSource('components/c.tsx', `import { taskIdOf } from '../lib/task-id.ts'\nexport const t = taskIdOf\n`)
        .offences,
    ).toEqual([])
    expect(
      checkSource(
        'server/lab/l.ts',
        `import { StreamWorker } from '../engine/stream-worker.ts'\nexport const w = StreamWorker\n`,
      ).offences,
    ).toEqual([])
  })
})

describe('check-shape line length', () => {
  it('flags each line over the limit with its number and length, and passes a line of exactly the limit', () => {
    const text = ['ok', 'x'.repeat(MAX_LINE_CHARS), `// ${'y'.repeat(MAX_LINE_CHARS)}`, ''].join('\n')
    expect(longLines('a.test.ts', text)).toEqual([
      `a.test.ts:3: line of ${MAX_LINE_CHARS + 3} characters (at most ${MAX_LINE_CHARS})`,
    ])
  })

  it('counts characters, not bytes or UTF-16 units, and ignores a CR before the newline', () => {
    const arrows = '→'.repeat(MAX_LINE_CHARS)
    const rockets = '🚀'.repeat(MAX_LINE_CHARS)
    expect(longLines('b.ts', `${arrows}\r\n${rockets}\n`)).toEqual([])
    expect(longLines('b.ts', `${arrows}→\n`)).toHaveLength(1)
  })
})
