// Kafka's -1: "no producer id" (a producer without idempotence), "no sequence" (nothing appended yet
// under this epoch). A reader gets the word, never the sentinel.

/** `n`, or "none" for Kafka's -1 (any negative). */
export function orNone(n: number): string {
  return n < 0 ? 'none' : String(n)
}
