// A scenario's claims, each with whether it holds: the scenario view and its evidence card show the same list.

export function ExpectationList({
  expectations,
  testId,
}: {
  expectations: readonly { claim: string; holds: boolean }[]
  testId: string
}) {
  return (
    <ul className="stack-list expectations">
      {expectations.map((e) => (
        <li
          key={e.claim}
          className={e.holds ? 'expect-holds' : 'expect-fails'}
          data-testid={testId}
          data-holds={e.holds}
        >
          <span className="expect-mark" aria-hidden="true">
            {e.holds ? '✓' : '✗'}
          </span>
          <span className="expect-claim">{e.claim}</span>
          <span className="expect-word">{e.holds ? 'holds' : 'fails'}</span>
        </li>
      ))}
    </ul>
  )
}
