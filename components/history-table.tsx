import type { ReactNode } from 'react'

export interface HistoryTableProps {
  /** Classes besides `history`. */
  className?: string
  /** Classes of the scrolling box besides `table-scroll`. */
  scrollClassName?: string
  testId?: string
  /** The header row's cells. */
  head: ReactNode
  /** The body's rows. */
  children: ReactNode
  /** What stands under the table (the empty message, a count of rows left out). */
  after?: ReactNode
}

/** A panel's table of rows in its scrolling box, with its header row. */
export function HistoryTable({ className, scrollClassName, testId, head, children, after }: HistoryTableProps) {
  return (
    /* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box, focusable so a keyboard can scroll it
       (axe: scrollable-region-focusable) */
    <div className={scrollClassName ? `table-scroll ${scrollClassName}` : 'table-scroll'} tabIndex={0}>
      <table className={className ? `history ${className}` : 'history'} data-testid={testId}>
        <thead>
          <tr>{head}</tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
      {after}
    </div>
  )
}
