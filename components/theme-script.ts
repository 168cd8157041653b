// Theme choice before the first paint (inlined in the layout's <head>): the stored theme, else the
// system's prefers-color-scheme. Dependency-free on purpose.

export const THEME_STORAGE_KEY = 'eoscope-theme'

export const THEME_INIT_SCRIPT =
  `(function(){try{var t=localStorage.getItem('${THEME_STORAGE_KEY}');` +
  "if(t!=='dark'&&t!=='light'){t=matchMedia('(prefers-color-scheme: light)').matches?'light':'dark'}" +
  "document.documentElement.dataset.theme=t}catch(e){document.documentElement.dataset.theme='dark'}})()"
