import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { detectResources, envDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

/**
 * The release running: the root package.json's version (the image ships it beside dist/). It is
 * looked up from here rather than at a fixed depth, since the same code runs from source (jest)
 * and from dist/.
 */
export function waggleVersion(from = __dirname): string {
  for (let directory = from, depth = 0; depth < 8; directory = dirname(directory), depth += 1) {
    const manifest = join(directory, 'package.json');
    if (!existsSync(manifest)) continue;
    const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown; version?: unknown };
    if (parsed.name === 'waggle' && typeof parsed.version === 'string') return parsed.version;
  }
  return 'unknown';
}

/**
 * What every span and every metric says about the process that made it: `service.name`
 * (`waggle-<app>`) and `service.version` (the release), then whatever the standard variables
 * add or override (`OTEL_RESOURCE_ATTRIBUTES`, e.g. `deployment.environment.name=prod`, and
 * `OTEL_SERVICE_NAME`). Prometheus sees it as the `target_info` series.
 */
export function waggleResource(appName: string): Resource {
  const own = resourceFromAttributes({ [ATTR_SERVICE_NAME]: `waggle-${appName}`, [ATTR_SERVICE_VERSION]: waggleVersion() });
  return own.merge(detectResources({ detectors: [envDetector] }));
}
