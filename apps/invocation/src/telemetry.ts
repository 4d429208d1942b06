import { startTelemetry } from '@waggle/telemetry';

startTelemetry('invocation');
