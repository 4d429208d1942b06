export { loadLocalEnvFile } from './local-env-file';
export { startTelemetry, stopTelemetry } from './telemetry';
