export { startTelemetry, stopTelemetry } from './telemetry';
