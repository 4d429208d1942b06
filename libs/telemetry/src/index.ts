export { loadLocalEnvFile } from './local-env-file';
export { routeTemplateOf, startTelemetry, stopTelemetry } from './telemetry';
export { listenForMetrics, serveMetricsRequest } from './metrics';
export { exportedSeriesNames, RUNTIME_METRIC_NAMES, WAGGLE_METRICS, type WaggleMetricKey } from './metric-names';
export { createInstruments, secondsSince, waggleMeter, waggleMetrics, type WaggleInstruments } from './waggle-metrics';
export { waggleResource, waggleVersion } from './resource';
export { activeTraceId, injectTraceContext, parseTraceparent, runInTraceContext, traceresponseOf } from './trace-context';
export { failSpan, inSpan, markSpanFailed, setSpansRecorded, spansRecorded, startSpan, type SpanOptions } from './spans';
export { genAiContentCaptured, GenAiSpanProcessor, setGenAiContentCaptured } from './gen-ai';
