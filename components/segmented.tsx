import type { CSSProperties } from 'react'

export interface SegmentedOption<T extends string> {
  value: T
  /** Shown on the button; the value itself when absent. */
  label?: string
  title?: string
  disabled?: boolean
}

export interface SegmentedProps<T extends string> {
  /** The group's accessible name. */
  label: string
  options: readonly SegmentedOption<T>[]
  /** The selected option; null when none is. */
  value: T | null
  testId: (value: T) => string
  /** Disables every option (a command on its way). */
  disabled?: boolean
  /** Called with an option other than the selected one. */
  onSelect: (value: T) => void
  style?: CSSProperties
}

/** A row of buttons that acts as one radio group: the selected one is on. */
export function Segmented<T extends string>({
  label,
  options,
  value,
  testId,
  disabled = false,
  onSelect,
  style,
}: SegmentedProps<T>) {
  return (
    <div className="segmented" role="radiogroup" aria-label={label} style={style}>
      {options.map((o) => (
        /* biome-ignore lint/a11y/useSemanticElements: a segmented bar of buttons acting as radios (ARIA radios in a
           radiogroup); native radio inputs would change its look and how the keyboard moves through it */
        <button
          key={o.value}
          type="button"
          role="radio"
          aria-checked={o.value === value}
          className={o.value === value ? 'on' : ''}
          data-testid={testId(o.value)}
          disabled={disabled || o.disabled}
          title={o.title}
          onClick={() => o.value !== value && onSelect(o.value)}
        >
          {o.label ?? o.value}
        </button>
      ))}
    </div>
  )
}
