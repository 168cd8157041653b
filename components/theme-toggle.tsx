'use client'
import { useEffect, useState } from 'react'
import { THEME_STORAGE_KEY } from './theme-script.ts'

export type Theme = 'dark' | 'light'

export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme | null>(null)
  useEffect(() => {
    setTheme(document.documentElement.dataset.theme === 'light' ? 'light' : 'dark')
  }, [])
  const next: Theme = theme === 'light' ? 'dark' : 'light'
  return (
    <button
      type="button"
      className="theme-toggle"
      aria-label={`switch to ${next} theme`}
      title={`switch to ${next} theme`}
      data-testid="theme-toggle"
      onClick={() => {
        document.documentElement.dataset.theme = next
        try {
          localStorage.setItem(THEME_STORAGE_KEY, next)
        } catch {
          // storage may be unavailable (private mode): the theme still switches for this page
        }
        setTheme(next)
      }}
    >
      {theme === null ? '◐' : theme === 'light' ? '☾ dark' : '☀ light'}
    </button>
  )
}
