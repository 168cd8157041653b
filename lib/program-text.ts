// Program text where a person reads: the browser tests read every page's visible text with it
// (e2e/page-audit.ts). Pure, so the check itself is tested on text with and without it.

/** Words a reader should never meet: an identifier from the code, a float as the machine prints it, a sentinel. */
export const PROGRAM_TEXT: { what: string; pattern: RegExp }[] = [
  // lowerCamelCase: a lower-case run followed by an upper-case letter inside one word (inputRatePerSec).
  { what: 'a camelCase identifier', pattern: /\b[a-z]+[A-Z][a-zA-Z]*\b/g },
  { what: 'a number with more than three decimals', pattern: /\b\d+\.\d{4,}\b/g },
  { what: 'a -1 sentinel', pattern: /(?<![\w.\-−])-1(?![\d.])/g },
]

/**
 * Kafka's own API names, which the UI quotes as Kafka's words and docs/glossary.md defines: terms of
 * the field, not identifiers of eoscope's code.
 */
export const KAFKA_API_NAMES: ReadonlySet<string> = new Set([
  'initTransactions',
  'beginTransaction',
  'commitTransaction',
  'abortTransaction',
  'sendOffsetsToTransaction',
  'groupMetadata',
])

/** Each piece of program text in `text`, with what it is. */
export function programText(text: string): string[] {
  const found: string[] = []
  for (const { what, pattern } of PROGRAM_TEXT)
    for (const m of text.matchAll(pattern)) {
      if (KAFKA_API_NAMES.has(m[0])) continue
      const around = text.slice(Math.max(0, m.index - 40), m.index + m[0].length + 40).replace(/\s+/g, ' ')
      found.push(`${what}: "${m[0]}" in "…${around}…"`)
    }
  return found
}
