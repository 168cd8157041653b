// A scenario's claims, each with whether it holds: the scenario view and its evidence card show the same list.

const MARK = { holds: '✓', fails: '✗', undecided: '≈' } as const

export function ExpectationList({
  expectations,
  testId,
}: {
  expectations: readonly { claim: string; holds: boolean; undecided?: string }[]
  testId: string
}) {
  return (
    <ul className="stack-list expectations">
      {expectations.map((e) => {
        const state = e.undecided !== undefined ? 'undecided' : e.holds ? 'holds' : 'fails'
        return (
          <li
            key={e.claim}
            className={`expect-${state}`}
            data-testid={testId}
            data-holds={state === 'undecided' ? 'undecided' : e.holds}
          >
            <span className="expect-mark" aria-hidden="true">
              {MARK[state]}
            </span>
            <span className="expect-claim">
              {e.claim}
              {e.undecided ? <span className="expect-why small muted">: {e.undecided}</span> : null}
            </span>
            <span className="expect-word">{state === 'undecided' ? 'not distinguishable' : state}</span>
          </li>
        )
      })}
    </ul>
  )
}
