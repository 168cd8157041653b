// Every entry a lab's journal holds, read page by page as GET /api/lab/journal serves them.

import type { JournalEntry, JournalPage } from '../../../../lib/journal.ts'
import type { JournalQuery } from '../lab-journal.ts'

export function wholeJournal(lab: { journalPage(q: JournalQuery): JournalPage }): JournalEntry[] {
  const out: JournalEntry[] = []
  for (let after = 0; ; ) {
    const page = lab.journalPage({ after, limit: 2_000, categories: null })
    out.push(...page.entries)
    if (!page.more) return out
    after = page.entries.at(-1)!.id
  }
}
