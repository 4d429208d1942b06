import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './app-process';

export const GRAFANA_DASHBOARD_PATH = join(REPO_ROOT, 'deploy/helm/waggle/files/waggle-dashboard.json');

export interface GrafanaPanel {
  type: string;
  title: string;
  targets?: Array<{ expr: string }>;
  panels?: GrafanaPanel[];
}

export interface GrafanaDashboard {
  uid: string;
  title: string;
  panels: GrafanaPanel[];
}

export function readGrafanaDashboard(path = GRAFANA_DASHBOARD_PATH): GrafanaDashboard {
  return JSON.parse(readFileSync(path, 'utf8')) as GrafanaDashboard;
}

/** Every PromQL expression of the dashboard, rows' nested panels included. */
export function dashboardExpressions(dashboard: GrafanaDashboard): string[] {
  const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
  return panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
}

/**
 * The metric names an expression reads: identifiers left once label matchers (`{…}`),
 * grouping clauses (`by (…)`), range selectors and function calls are taken out.
 */
export function metricNamesIn(expression: string): string[] {
  const withoutLabels = expression
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ');
  const keywords = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset']);
  const names = new Set<string>();
  for (const [, identifier, call] of withoutLabels.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)) {
    if (!call && !keywords.has(identifier as string)) names.add(identifier as string);
  }
  return [...names];
}
