import { startTelemetry } from '@waggle/telemetry';

startTelemetry('catalog');
