// What GET /api/observe sends the /observe page: the parts of an observed application's sample
// (server/observe/application-observer.ts) that the page shows. The server checks at compile
// time that its sample has this shape (server/http/observe-route.ts), so the two cannot drift.

export interface ObservedMemberView {
  memberId: string
  clientId: string
  host: string | null
  assignment: { topic: string; partition: number }[]
}

export interface ObservedGenerationView {
  generation: number
  leader: string | null
  members: { memberId: string }[]
  writtenAtMs: number
}

export interface ObservedTransactionView {
  transactionalId: string
  producerId: number
  epoch: number
  state: string
  timeoutMs: number
  partitions: { topic: string; partition: number }[]
  openForMs: number | null
}

export interface OpenTransactionView {
  topic: string
  partition: number
  producerId: number
  epoch: number
  currentTxnStartOffset: number
  transactionalId: string | null
  verdict: 'ongoing' | 'overdue' | 'hanging'
  reason: string
}

export interface ObservedPartitionView {
  topic: string
  partition: number
  role: 'input' | 'output' | 'internal'
  logStartOffset: number
  lastStableOffset: number
  highWatermark: number
  committed: number | null
  lag: number | null
  commitMarkers: number
  abortMarkers: number
}

export type JudgedRow = 'duplicates' | 'lost' | 'abortedReads' | 'stateMismatches' | 'openTransactions'

export interface ObservedValidationView {
  format: string
  input: string
  output: string
  changelog: string | null
  judgedAs: 'exactly-once' | 'at-least-once'
  because: string
  inputRecords: number
  outputRecords: number
  duplicates: number | null
  lost: number | null
  abortedReads: number
  stateMismatches: number | null
  violations: { row: JudgedRow; value: number }[]
  unavailable: { row: JudgedRow; reason: string }[]
  notes: string[]
}

export interface ObserveSampleView {
  atMs: number
  applicationId: string
  group: {
    state: string
    protocol: string
    members: ObservedMemberView[]
    generation: number | null
    generations: readonly (ObservedGenerationView | { deletedAtMs: number })[]
  }
  transactions: ObservedTransactionView[]
  open: OpenTransactionView[]
  hanging: OpenTransactionView[]
  partitions: ObservedPartitionView[]
  totals: {
    commitMarkers: number
    abortMarkers: number
    committedInput: number
    committedPerSecond: number | null
    lag: number
  }
  validation: ObservedValidationView | null
  notes: string[]
}
