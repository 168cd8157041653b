// The lab's pages rendered to HTML from a snapshot, for tests: the frame (header, stat row) around
// the pages asked for, in the order given.

import { createElement, type ReactNode } from 'react'
import { renderToString } from 'react-dom/server'
import type { LabSnapshot } from '../../lib/lab-protocol.ts'
import type { LabViewMode } from '../lab-context.tsx'
import { LabFrame } from '../lab-shell.tsx'
import {
  JournalPageView,
  type LabPageProps,
  OverviewView,
  PartitionsPageView,
  RecoveryPageView,
  ScenariosPageView,
  TransactionsPageView,
} from '../lab-views.tsx'
import type { ConnectionState } from '../use-lab.ts'

export const LAB_PAGES = {
  overview: OverviewView,
  scenarios: ScenariosPageView,
  transactions: TransactionsPageView,
  recovery: RecoveryPageView,
  partitions: PartitionsPageView,
  journal: JournalPageView,
} as const

export type LabPageName = keyof typeof LAB_PAGES

export interface RenderLabOptions {
  connection?: ConnectionState
  view?: LabViewMode
  timeControl?: ReactNode
  pages?: readonly LabPageName[]
  entries?: LabPageProps['entries']
}

const send = async () => ({ ok: true as const })

export function renderLab(snapshot: LabSnapshot | null, options: RenderLabOptions = {}): string {
  const { connection = 'live', view = 'live', timeControl, pages = ['overview'], entries = [] } = options
  const children =
    snapshot === null
      ? null
      : pages.map((name) =>
          createElement(LAB_PAGES[name], {
            key: name,
            snapshot,
            send,
            entries,
            horizon: null,
            held: view !== 'live',
            journalUnavailable: false,
            journalError: null,
            onShow: () => {},
          }),
        )
  return renderToString(createElement(LabFrame, { snapshot, connection, send, timeControl, view, children }))
}
