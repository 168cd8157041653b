// The header of a page other than the live lab (experiments, observe): the brand with the page's
// tagline, the way back to the lab, the token and the theme.

import Link from 'next/link'
import { Brand } from './header-bar.tsx'
import { ThemeToggle } from './theme-toggle.tsx'
import { TokenControl } from './token-control.tsx'

export function SubPageHeader({ tagline }: { tagline: string }) {
  return (
    <header className="top-bar">
      <Brand tagline={tagline} />
      <nav className="top-meta">
        <Link href="/">← live lab</Link>
        <TokenControl />
        <ThemeToggle />
      </nav>
    </header>
  )
}
