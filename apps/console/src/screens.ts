/** The console's screens in the navigation's order: the path each area's routes.tsx serves. */
export const SCREENS = [
  { to: '/overview', label: 'Overview' },
  { to: '/runs', label: 'Runs' },
  { to: '/prompts', label: 'Prompts and workflows' },
  { to: '/experiments', label: 'Experiments' },
  { to: '/agents', label: 'Agents' },
  { to: '/knowledge', label: 'Knowledge and assets' },
  { to: '/webhooks', label: 'Webhooks' },
] as const;
