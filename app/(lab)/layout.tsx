import type { ReactNode } from 'react'
import { LabProvider } from '../../components/lab-context.tsx'
import { LabShell } from '../../components/lab-shell.tsx'

// The live lab's pages share this layout: one socket, the header, the time control and the
// headline figures stay while the reader moves between them.
export default function LabLayout({ children }: { children: ReactNode }) {
  return (
    <LabProvider>
      <LabShell>{children}</LabShell>
    </LabProvider>
  )
}
