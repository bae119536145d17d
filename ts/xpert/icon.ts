/** The plugin's icon: a message list whose older entries are folded away. */
export const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">
  <rect x="2" y="2" width="60" height="60" rx="12" fill="#1f4e79"/>
  <rect x="12" y="12" width="40" height="7" rx="3.5" fill="#8fb8de" opacity="0.45"/>
  <rect x="12" y="23" width="40" height="7" rx="3.5" fill="#8fb8de" opacity="0.45"/>
  <rect x="12" y="34" width="40" height="7" rx="3.5" fill="#e8f1fa"/>
  <rect x="12" y="45" width="28" height="7" rx="3.5" fill="#e8f1fa"/>
  <path d="M46 44 l8 4.5 -8 4.5z" fill="#f5b942"/>
</svg>`
