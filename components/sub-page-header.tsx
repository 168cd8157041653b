// The header of a page other than the live lab (experiments, observe): the brand with the page's
// tagline, the same pages as the lab's header, the token and the theme.

import { Brand } from './header-bar.tsx'
import { SiteNav } from './site-nav.tsx'
import { ThemeToggle } from './theme-toggle.tsx'
import { TokenControl } from './token-control.tsx'

export function SubPageHeader({ tagline }: { tagline: string }) {
  return (
    <header className="top-bar">
      <Brand tagline={tagline} />
      <SiteNav />
      <div className="top-meta">
        <TokenControl />
        <ThemeToggle />
      </div>
    </header>
  )
}
