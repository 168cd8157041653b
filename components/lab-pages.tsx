'use client'
// Each page of the live lab, reading the layout's one lab: the page's view for the snapshot shown.

import type { ComponentType } from 'react'
import { useLabContext } from './lab-context.tsx'
import {
  JournalPageView,
  type LabPageProps,
  OverviewView,
  PartitionsPageView,
  RecoveryPageView,
  ScenariosPageView,
  TransactionsPageView,
} from './lab-views.tsx'

function labPage(View: ComponentType<LabPageProps>, name: string) {
  function LabPage() {
    const lab = useLabContext()
    if (lab.snapshot === null) return null
    return (
      <View
        snapshot={lab.snapshot}
        send={lab.send}
        entries={lab.journal.entries}
        horizon={lab.horizon}
        held={lab.view !== 'live'}
        journalUnavailable={lab.live !== null && lab.live.journal === undefined}
        journalError={lab.journal.error}
        onShow={lab.time.seek}
      />
    )
  }
  LabPage.displayName = name
  return LabPage
}

export const OverviewPage = labPage(OverviewView, 'OverviewPage')
export const ScenariosPage = labPage(ScenariosPageView, 'ScenariosPage')
export const TransactionsPage = labPage(TransactionsPageView, 'TransactionsPage')
export const RecoveryPage = labPage(RecoveryPageView, 'RecoveryPage')
export const PartitionsPage = labPage(PartitionsPageView, 'PartitionsPage')
export const JournalPage = labPage(JournalPageView, 'JournalPage')
