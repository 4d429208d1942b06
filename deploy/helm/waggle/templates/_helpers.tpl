{{/*
Chart name, overridable with nameOverride.
*/}}
{{- define "waggle.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Release-scoped name used as the prefix of every object (63 characters at most,
the DNS label limit).
*/}}
{{- define "waggle.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "waggle.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "waggle.selectorLabels" -}}
app.kubernetes.io/name: {{ include "waggle.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "waggle.labels" -}}
helm.sh/chart: {{ include "waggle.chart" . }}
{{ include "waggle.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: waggle
{{- end }}

{{/*
Per-app helpers. Call with (dict "root" $ "name" $name).
*/}}
{{- define "waggle.appFullname" -}}
{{- printf "%s-%s" (include "waggle.fullname" .root) .name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "waggle.appSelectorLabels" -}}
{{ include "waggle.selectorLabels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{- define "waggle.appLabels" -}}
{{ include "waggle.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{- define "waggle.migrationsName" -}}
{{- printf "%s-migrations" (include "waggle.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "waggle.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{/*
The Secret the apps read credentials from: the operator's own, or the chart's.
*/}}
{{- define "waggle.secretName" -}}
{{- .Values.secrets.existingSecret | default (include "waggle.fullname" .) }}
{{- end }}

{{/*
Non-secret environment shared by every process, as a YAML map. The ConfigMap
renders it; the migrations hook inlines it, because on first install a
pre-install hook runs before the ConfigMap exists. Numbers go through int64 so
that large values do not render in float notation (1e+06).
*/}}
{{- define "waggle.configData" -}}
NODE_ENV: {{ .Values.config.nodeEnv | quote }}
LOG_LEVEL: {{ .Values.config.logLevel | quote }}
HOST: "0.0.0.0"
NATS_URL: {{ .Values.config.natsUrl | quote }}
NATS_REQUEST_TIMEOUT_MS: {{ int64 .Values.config.natsRequestTimeoutMs | quote }}
SHUTDOWN_GRACE_MS: {{ int64 .Values.config.shutdownGraceMs | quote }}
{{- with .Values.config.otelExporterOtlpEndpoint }}
OTEL_EXPORTER_OTLP_ENDPOINT: {{ . | quote }}
{{- end }}
{{- with .Values.config.callbackUrlAllowlist }}
CALLBACK_URL_ALLOWLIST: {{ . | quote }}
{{- end }}
LEDGER_STREAM_REPLICAS: {{ int64 .Values.config.ledgerStreamReplicas | quote }}
ASSET_STORAGE_DRIVER: {{ .Values.config.assetStorage.driver | quote }}
ASSET_STORAGE_DIR: {{ .Values.config.assetStorage.dir | quote }}
{{- with .Values.config.assetStorage.s3.bucket }}
ASSET_S3_BUCKET: {{ . | quote }}
{{- end }}
{{- with .Values.config.assetStorage.s3.endpoint }}
ASSET_S3_ENDPOINT: {{ . | quote }}
{{- end }}
ASSET_S3_REGION: {{ .Values.config.assetStorage.s3.region | quote }}
ASSET_S3_FORCE_PATH_STYLE: {{ .Values.config.assetStorage.s3.forcePathStyle | toString | quote }}
{{- end }}

{{/*
Credentials as a YAML map. Empty values are left out so that an app falls back
to its default instead of failing validation on an empty string.
*/}}
{{- define "waggle.secretData" -}}
{{- with .Values.secrets.databaseUrl }}
DATABASE_URL: {{ . | quote }}
{{- end }}
{{- with .Values.secrets.redisUrl }}
REDIS_URL: {{ . | quote }}
{{- end }}
WEBHOOK_SECRET_KEY: {{ required "secrets.webhookSecretKey is required (openssl rand -base64 32), or set secrets.existingSecret" .Values.secrets.webhookSecretKey | quote }}
{{- with .Values.secrets.openaiApiKey }}
OPENAI_API_KEY: {{ . | quote }}
{{- end }}
{{- with .Values.secrets.anthropicApiKey }}
ANTHROPIC_API_KEY: {{ . | quote }}
{{- end }}
{{- with .Values.secrets.googleGenerativeAiApiKey }}
GOOGLE_GENERATIVE_AI_API_KEY: {{ . | quote }}
{{- end }}
{{- with .Values.secrets.assetS3AccessKeyId }}
ASSET_S3_ACCESS_KEY_ID: {{ . | quote }}
{{- end }}
{{- with .Values.secrets.assetS3SecretAccessKey }}
ASSET_S3_SECRET_ACCESS_KEY: {{ . | quote }}
{{- end }}
{{- end }}

{{/*
Kubernetes must wait longer than the app's own drain (SHUTDOWN_GRACE_MS,
rounded up to seconds) plus the preStop sleep, with a margin, before SIGKILL.
*/}}
{{- define "waggle.terminationGracePeriodSeconds" -}}
{{- $drainSeconds := div (add (int64 .Values.config.shutdownGraceMs) 999) 1000 }}
{{- add $drainSeconds (int64 .Values.preStopSleepSeconds) 5 }}
{{- end }}

{{/*
Pod-level fields shared by the app Deployments and the migrations Job.
*/}}
{{- define "waggle.podSchedulingAndIdentity" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.serviceAccountName }}
serviceAccountName: {{ . }}
{{- end }}
automountServiceAccountToken: false
enableServiceLinks: false
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
