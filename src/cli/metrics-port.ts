import type { Config } from '../config/config-schema.js';
import type { MetricsEndpoint } from '../server/metrics-endpoint.js';

/**
 * The metrics port of `serve` and `worker` when `--metrics-port` (or IMMOREEL_METRICS_PORT) is
 * set, else null (docs/operations.md "Metrics"). prom-client is loaded only then.
 */
export async function metricsPortOf(config: Config): Promise<MetricsEndpoint | null> {
  if (config.metricsPort === undefined) return null;
  const { MetricsEndpoint } = await import('../server/metrics-endpoint.js');
  return new MetricsEndpoint({ host: config.metricsHost, port: config.metricsPort, publicHosts: config.publicHosts });
}
