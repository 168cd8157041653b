import { describe, expect, it } from 'vitest'
import { LogError } from './errors.ts'
import { errorCode } from './fixtures/error-code.ts'
import {
  LEGAL_STATES,
  PRODUCER_STATES,
  ProducerStateMachine,
  STATE_AFTER_FAILURE,
  TRANSACTIONAL_CALLS,
  VALID_STATE_TRANSITIONS,
  type ProducerState,
  type TransactionalCall,
} from './producer-state.ts'

/** A path of legal calls from UNINITIALIZED to each state. */
const PATH: Record<ProducerState, (m: ProducerStateMachine) => void> = {
  UNINITIALIZED: () => {},
  READY: (m) => m.transitionTo('READY'),
  TRANSACTING: (m) => {
    PATH.READY(m)
    m.transitionTo('TRANSACTING')
  },
  COMMITTING: (m) => {
    PATH.TRANSACTING(m)
    m.transitionTo('COMMITTING')
  },
  ABORTING: (m) => {
    PATH.TRANSACTING(m)
    m.transitionTo('ABORTING')
  },
  ABORTABLE_ERROR: (m) => {
    PATH.TRANSACTING(m)
    m.transitionTo('ABORTABLE_ERROR')
  },
  FENCED: (m) => {
    PATH.TRANSACTING(m)
    m.transitionTo('FENCED')
  },
  FATAL_ERROR: (m) => {
    PATH.COMMITTING(m)
    m.transitionTo('FATAL_ERROR')
  },
  CLOSED: (m) => m.close(),
}

function machineIn(state: ProducerState): ProducerStateMachine {
  const m = new ProducerStateMachine(() => 'p-1 (tid)')
  PATH[state](m)
  expect(m.state).toBe(state)
  return m
}

const codeOf = (f: () => void) => errorCode(f) ?? null

/** The diagram of producer-state.ts, edge by edge. */
const DIAGRAM = `
  UNINITIALIZED -> READY | FENCED | CLOSED
  READY -> READY | TRANSACTING | FENCED | CLOSED
  TRANSACTING -> COMMITTING | ABORTING | ABORTABLE_ERROR | FENCED | CLOSED
  COMMITTING -> READY | FATAL_ERROR | FENCED | CLOSED
  ABORTING -> READY | FATAL_ERROR | FENCED | CLOSED
  ABORTABLE_ERROR -> ABORTING | FENCED | CLOSED
  FENCED -> CLOSED
  FATAL_ERROR -> CLOSED
`
const EDGES = new Set(
  DIAGRAM.trim()
    .split('\n')
    .flatMap((line) => {
      const [from, tos] = line.split('->').map((x) => x.trim())
      return tos!.split('|').map((to) => `${from} -> ${to.trim()}`)
    }),
)

/** Each call and the states it is legal in, as Kafka's TransactionManager has them. */
const GUARDS = `
  initTransactions in UNINITIALIZED, READY
  beginTransaction in READY
  send in TRANSACTING
  sendOffsets in TRANSACTING
  commit in TRANSACTING
  abort in TRANSACTING, ABORTABLE_ERROR
`
const EXPECTED_LEGAL = Object.fromEntries(
  GUARDS.trim()
    .split('\n')
    .map((line) => {
      const [call, states] = line.trim().split(' in ')
      return [call, states!.split(', ')]
    }),
) as Record<TransactionalCall, ProducerState[]>

describe('the transactional producer state machine', () => {
  const pairs = PRODUCER_STATES.flatMap((from) =>
    PRODUCER_STATES.map((to) => ({ from, to, legal: EDGES.has(`${from} -> ${to}`) })),
  )

  it.each(pairs)('$from -> $to is legal: $legal', ({ from, to, legal }) => {
    const m = machineIn(from)
    const code = codeOf(() => m.transitionTo(to))
    expect(code).toBe(legal ? null : 'INVALID_TXN_STATE')
    expect(m.state).toBe(legal ? to : from)
  })

  it('draws the transitions of the diagram and no other, and guards the calls as Kafka does', () => {
    const table = new Set(
      PRODUCER_STATES.flatMap((from) => VALID_STATE_TRANSITIONS[from].map((to) => `${from} -> ${to}`)),
    )
    expect([...table].sort()).toEqual([...EDGES].sort())
    expect(LEGAL_STATES).toEqual(EXPECTED_LEGAL)
  })

  const calls = TRANSACTIONAL_CALLS.flatMap((call) =>
    PRODUCER_STATES.map((state) => ({ call, state, legal: EXPECTED_LEGAL[call].includes(state) })),
  )

  it.each(calls)('$call in $state is legal: $legal', ({ call, state, legal }) => {
    const code = codeOf(() => machineIn(state).require(call))
    if (legal) expect(code).toBeNull()
    else if (state === 'FENCED') expect(code).toBe('PRODUCER_FENCED')
    else if (state === 'CLOSED') expect(code).toBe('INVALID_REQUEST')
    else expect(code).toBe('INVALID_TXN_STATE')
  })

  const followsKafkaOnAbort =
    'follows Kafka on abort: no transaction to abort in READY, no abort of a commit in flight, abort after an ' +
    'abortable error'
  it(followsKafkaOnAbort, () => {
    expect(codeOf(() => machineIn('READY').require('abort'))).toBe('INVALID_TXN_STATE')
    expect(codeOf(() => machineIn('COMMITTING').require('abort'))).toBe('INVALID_TXN_STATE')
    expect(codeOf(() => machineIn('ABORTING').require('abort'))).toBe('INVALID_TXN_STATE')
    expect(codeOf(() => machineIn('ABORTABLE_ERROR').require('abort'))).toBeNull()
    expect(codeOf(() => machineIn('ABORTABLE_ERROR').require('commit'))).toBe('INVALID_TXN_STATE')
  })

  it('every call leads somewhere legal from every state it is legal in', () => {
    for (const call of TRANSACTIONAL_CALLS) {
      const after = STATE_AFTER_FAILURE[call]
      if (after === null) continue
      for (const state of LEGAL_STATES[call]) {
        const through = call === 'commit' ? 'COMMITTING' : call === 'abort' ? 'ABORTING' : state
        expect(through === state || VALID_STATE_TRANSITIONS[state].includes(through)).toBe(true)
        expect(VALID_STATE_TRANSITIONS[through]).toContain(after)
      }
    }
  })

  it.each([
    { call: 'send' as const, from: 'TRANSACTING' as const, to: 'ABORTABLE_ERROR' },
    { call: 'sendOffsets' as const, from: 'TRANSACTING' as const, to: 'ABORTABLE_ERROR' },
    { call: 'commit' as const, from: 'COMMITTING' as const, to: 'FATAL_ERROR' },
    { call: 'abort' as const, from: 'ABORTING' as const, to: 'FATAL_ERROR' },
    { call: 'initTransactions' as const, from: 'UNINITIALIZED' as const, to: 'UNINITIALIZED' },
  ])('a $call that fails in $from leaves the producer in $to; fenced, in FENCED', ({ call, from, to }) => {
    const m = machineIn(from)
    const error = new LogError('REQUEST_TIMED_OUT', 'no answer')
    expect(() => m.fail(call, error)).toThrow(error)
    expect(m.state).toBe(to)
    const fenced = machineIn(from)
    expect(() => fenced.fail(call, new LogError('PRODUCER_FENCED', 'newer epoch'))).toThrow(/PRODUCER_FENCED/)
    expect(fenced.state).toBe('FENCED')
  })

  it('names the producer and the state in its refusals', () => {
    expect(() => machineIn('READY').require('commit')).toThrow(
      'INVALID_TXN_STATE: commit is not legal in state READY (p-1 (tid))',
    )
    expect(() => machineIn('FENCED').require('send')).toThrow(/producer p-1 \(tid\) was fenced/)
    expect(() => machineIn('CLOSED').requireOpen()).toThrow(/producer p-1 \(tid\) is closed/)
  })

  it.each(['COMMIT', 'ABORT'] as const)(
    'ends a transaction with %s through COMMITTING or ABORTING to READY, or to FATAL_ERROR when EndTxn fails',
    async (result) => {
      const ok = machineIn('TRANSACTING')
      const seen: ProducerState[] = []
      await ok.endTransaction(result, async () => {
        seen.push(ok.state)
      })
      expect(seen).toEqual([result === 'COMMIT' ? 'COMMITTING' : 'ABORTING'])
      expect(ok.state).toBe('READY')
      const failing = machineIn('TRANSACTING')
      const mapped = new LogError('REQUEST_TIMED_OUT', 'mapped')
      await expect(
        failing.endTransaction(
          result,
          () => Promise.reject(new Error('raw')),
          () => mapped,
        ),
      ).rejects.toBe(mapped)
      expect(failing.state).toBe('FATAL_ERROR')
      await expect(machineIn('READY').endTransaction(result, async () => {})).rejects.toThrow(/INVALID_TXN_STATE/)
    },
  )
})
