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

{{/* Every object's labels: commonLabels, then the chart's own (which win). */}}
{{- define "waggle.labels" -}}
{{- with omit .Values.commonLabels "helm.sh/chart" "app.kubernetes.io/name" "app.kubernetes.io/instance" "app.kubernetes.io/version" "app.kubernetes.io/managed-by" "app.kubernetes.io/part-of" "app.kubernetes.io/component" }}{{ toYaml . }}{{ printf "\n" }}{{ end -}}
helm.sh/chart: {{ include "waggle.chart" . }}
{{ include "waggle.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: waggle
{{- end }}

{{/*
An object's annotations: commonAnnotations merged with its own (a dict, which win), as an
`annotations:` block, or nothing when both are empty. Call with (dict "root" $ "own" <dict>).
*/}}
{{- define "waggle.annotations" -}}
{{- $annotations := merge (dict) (.own | default dict) .root.Values.commonAnnotations }}
{{- with $annotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
The name of one of the release's objects: the full name and a suffix, at most 63 characters
(the DNS label limit) with the suffix whole. When they do not fit, the full name is cut and
followed by six characters of its hash, so that the objects of two long release names that
share a prefix stay apart. templates/validations.yaml checks every name is unique.
Call with (dict "root" $ "suffix" "gateway-metrics").
*/}}
{{- define "waggle.objectName" -}}
{{- $fullname := include "waggle.fullname" .root }}
{{- $name := printf "%s-%s" $fullname .suffix }}
{{- if gt (len $name) 63 }}
{{- $room := sub 63 (add (len .suffix) 8) | int }}
{{- $name = printf "%s-%s-%s" ($fullname | trunc $room | trimSuffix "-") (sha256sum $fullname | trunc 6) .suffix }}
{{- end }}
{{- $name }}
{{- end }}

{{/*
Every object name the release can hold, one per line as "<what>: <name>", for the
uniqueness check in validations.yaml.
*/}}
{{- define "waggle.objectNames" -}}
{{- $names := dict "release" (include "waggle.fullname" .) "migrations" (include "waggle.migrationsName" .) "assets" (include "waggle.objectName" (dict "root" . "suffix" "assets")) "tests" (include "waggle.testName" .) "dashboard" (include "waggle.dashboardName" .) }}
{{- range $name, $app := .Values.apps }}
{{- $_ := set $names (printf "apps.%s" $name) (include "waggle.appFullname" (dict "root" $ "name" $name)) }}
{{- $_ := set $names (printf "apps.%s metrics" $name) (include "waggle.metricsServiceName" (dict "root" $ "name" $name)) }}
{{- end }}
{{- toYaml $names }}
{{- end }}

{{/*
Per-app helpers. Call with (dict "root" $ "name" $name).
*/}}
{{- define "waggle.appFullname" -}}
{{- include "waggle.objectName" (dict "root" .root "suffix" .name) }}
{{- end }}

{{/* An app's metrics Service. */}}
{{- define "waggle.metricsServiceName" -}}
{{- include "waggle.objectName" (dict "root" .root "suffix" (printf "%s-metrics" .name)) }}
{{- end }}

{{/*
PromQL label matchers of the series this release's apps export: their namespace, and the
`service` label the Prometheus Operator (and the usual kubernetes-service-endpoints scrape
job) sets to the Service scraped, here the release's metrics Services; or
metrics.seriesSelector when set. Used by the KEDA triggers and the PrometheusRule, so neither
reads another release's series.
*/}}
{{- define "waggle.seriesMatchers" -}}
{{- if .Values.metrics.seriesSelector }}
{{- .Values.metrics.seriesSelector }}
{{- else }}
{{- $services := list }}
{{- range $name, $app := .Values.apps }}
{{- if $app.enabled }}{{ $services = append $services (include "waggle.metricsServiceName" (dict "root" $ "name" $name)) }}{{ end }}
{{- end }}
{{- printf "namespace=%q,service=~%q" .Release.Namespace (join "|" $services) }}
{{- end }}
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
{{- include "waggle.objectName" (dict "root" . "suffix" "migrations") }}
{{- end }}

{{/* The helm test Pod (templates/tests/), its Secret and NetworkPolicy. */}}
{{- define "waggle.testName" -}}
{{- include "waggle.objectName" (dict "root" . "suffix" "test") }}
{{- end }}

{{/* The Grafana dashboard's ConfigMap. */}}
{{- define "waggle.dashboardName" -}}
{{- include "waggle.objectName" (dict "root" . "suffix" "dashboard") }}
{{- end }}

{{/*
The image: [global.imageRegistry/]image.repository, then :tag (default the appVersion),
then @digest when image.digest is set (the digest is what the runtime pulls).
*/}}
{{- define "waggle.image" -}}
{{- $image := .Values.image }}
{{- $repository := $image.repository }}
{{- with (dig "imageRegistry" "" (.Values.global | default dict)) }}
{{- $repository = printf "%s/%s" (trimSuffix "/" .) $repository }}
{{- end }}
{{- $reference := printf "%s:%s" $repository ($image.tag | default .Chart.AppVersion) }}
{{- with $image.digest }}
{{- $reference = printf "%s@%s" $reference . }}
{{- end }}
{{- $reference }}
{{- end }}

{{- define "waggle.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- .Values.serviceAccount.name | default (include "waggle.fullname" .) }}
{{- else }}
{{- .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The migrations Job's ServiceAccount. A pre-install hook runs before the release's own
ServiceAccount exists, so by default the chart makes the Job one of its own, a hook created
just before it; else migrations.serviceAccount.name, else (serviceAccount.create false) the
apps' one you made, else the namespace's default.
*/}}
{{- define "waggle.migrationsServiceAccountName" -}}
{{- $account := .Values.migrations.serviceAccount }}
{{- if $account.create }}
{{- $account.name | default (include "waggle.migrationsName" .) }}
{{- else if $account.name }}
{{- $account.name }}
{{- else if not .Values.serviceAccount.create }}
{{- .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
What each app reads (files/app-env.json, generated from the env classes by
`npm run env:example`), as a dict: apps.<name>.env = [{name, secret}],
apps.<name>.queues, migrate.env.
*/}}
{{- define "waggle.manifest" -}}
{{- .Files.Get "files/app-env.json" }}
{{- end }}

{{/*
Whether an app reads a variable: (dict "root" $ "app" $name "variable" "DATABASE_URL").
Renders "true" or nothing.
*/}}
{{- define "waggle.reads" -}}
{{- $manifest := include "waggle.manifest" .root | fromJson }}
{{- $variable := .variable }}
{{- range (index $manifest.apps .app).env }}
{{- if eq .name $variable }}true{{ end }}
{{- end }}
{{- end }}

{{/*
The variables the chart sets from its own values; config.env and apps.<name>.env may
not name them (validations.yaml says which value to use instead).
*/}}
{{- define "waggle.managedVariables" -}}
NODE_ENV: config.nodeEnv
LOG_LEVEL: config.logLevel
HOST: (fixed to 0.0.0.0)
PORT: apps.<name>.port
NATS_URL: config.natsUrl
NATS_REQUEST_TIMEOUT_MS: config.natsRequestTimeoutMs
HTTP_KEEP_ALIVE_TIMEOUT_MS: config.httpKeepAliveTimeoutMs
METRICS_PORT: metrics.gatewayPort
SHUTDOWN_GRACE_MS: config.shutdownGraceMs
OTEL_EXPORTER_OTLP_ENDPOINT: config.otelExporterOtlpEndpoint
CALLBACK_URL_ALLOWLIST: config.callbackUrlAllowlist
LEDGER_STREAM_REPLICAS: config.ledgerStreamReplicas
ASSET_STORAGE_DRIVER: config.assetStorage.driver
ASSET_STORAGE_DIR: config.assetStorage.dir
ASSET_S3_BUCKET: config.assetStorage.s3.bucket
ASSET_S3_ENDPOINT: config.assetStorage.s3.endpoint
ASSET_S3_REGION: config.assetStorage.s3.region
ASSET_S3_FORCE_PATH_STYLE: config.assetStorage.s3.forcePathStyle
NATS_CREDS_FILE: natsFiles.credsKey
NATS_NKEY_SEED_FILE: natsFiles.nkeySeedKey
NATS_TLS_CA_FILE: natsFiles.tlsCaKey
NATS_TLS_CERT_FILE: natsFiles.tlsCertKey
NATS_TLS_KEY_FILE: natsFiles.tlsKeyKey
{{- end }}

{{/*
The NATS files mounted from natsFiles.existingSecret: variable, Secret key, file name.
*/}}
{{- define "waggle.natsFiles" -}}
{{- $files := .Values.natsFiles }}
{{- range $entry := list (list "NATS_CREDS_FILE" $files.credsKey "nats.creds") (list "NATS_NKEY_SEED_FILE" $files.nkeySeedKey "nkey.seed") (list "NATS_TLS_CA_FILE" $files.tlsCaKey "ca.crt") (list "NATS_TLS_CERT_FILE" $files.tlsCertKey "tls.crt") (list "NATS_TLS_KEY_FILE" $files.tlsKeyKey "tls.key") }}
{{- if index $entry 1 }}
- variable: {{ index $entry 0 }}
  key: {{ index $entry 1 | quote }}
  path: {{ index $entry 2 }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Non-secret values of every variable the chart can set, name to string; each app's
ConfigMap keeps those it reads. Numbers go through int64 so that large values do not
render in float notation (1e+06).
*/}}
{{- define "waggle.configValues" -}}
{{- $config := .Values.config }}
{{- $values := dict
  "NODE_ENV" $config.nodeEnv
  "LOG_LEVEL" $config.logLevel
  "HOST" "0.0.0.0"
  "NATS_URL" $config.natsUrl
  "NATS_REQUEST_TIMEOUT_MS" (int64 $config.natsRequestTimeoutMs | toString)
  "HTTP_KEEP_ALIVE_TIMEOUT_MS" (int64 $config.httpKeepAliveTimeoutMs | toString)
  "METRICS_PORT" (int64 .Values.metrics.gatewayPort | toString)
  "SHUTDOWN_GRACE_MS" (int64 $config.shutdownGraceMs | toString)
  "LEDGER_STREAM_REPLICAS" (int64 $config.ledgerStreamReplicas | toString)
  "ASSET_STORAGE_DRIVER" $config.assetStorage.driver
  "ASSET_STORAGE_DIR" $config.assetStorage.dir
  "ASSET_S3_REGION" $config.assetStorage.s3.region
  "ASSET_S3_FORCE_PATH_STYLE" ($config.assetStorage.s3.forcePathStyle | toString)
}}
{{- with $config.otelExporterOtlpEndpoint }}{{ $_ := set $values "OTEL_EXPORTER_OTLP_ENDPOINT" . }}{{ end }}
{{- with $config.callbackUrlAllowlist }}{{ $_ := set $values "CALLBACK_URL_ALLOWLIST" . }}{{ end }}
{{- with $config.assetStorage.s3.bucket }}{{ $_ := set $values "ASSET_S3_BUCKET" . }}{{ end }}
{{- with $config.assetStorage.s3.endpoint }}{{ $_ := set $values "ASSET_S3_ENDPOINT" . }}{{ end }}
{{- $mountPath := .Values.natsFiles.mountPath | trimSuffix "/" }}
{{- range (include "waggle.natsFiles" . | fromYamlArray) }}
{{- $_ := set $values .variable (printf "%s/%s" $mountPath .path) }}
{{- end }}
{{- range $name, $value := $config.env }}
{{- $_ := set $values $name ($value | toString) }}
{{- end }}
{{- toYaml $values }}
{{- end }}

{{/*
A secrets.<entry> as {value, existingSecret, key}, each defaulting to "".
Call with (dict "root" $ "entry" "databaseUrl").
*/}}
{{- define "waggle.secretEntry" -}}
{{- $raw := index .root.Values.secrets .entry | default dict }}
{{- toYaml (dict "value" ($raw.value | default "") "existingSecret" ($raw.existingSecret | default "") "key" ($raw.key | default "")) }}
{{- end }}

{{/* The values key of a variable: DATABASE_URL -> databaseUrl. */}}
{{- define "waggle.secretKeyOf" -}}
{{- . | lower | camelcase | untitle }}
{{- end }}

{{/*
How one process gets its environment, as YAML:
  config:     name -> value (its ConfigMap, or inline for the migrations hook)
  secretData: name -> value (the chart's Secret named secretName)
  secretRefs: [{name, secretName, key, optional}]
Call with (dict "root" $ "env" <manifest entries> "overrides" <name -> value>
"secretName" <the chart's Secret for this process>), and optionally "entries", variable name
to a {value, existingSecret, key} that replaces its secrets.<entry> for this process.
A variable with an entry under secrets comes from a Secret; any other from config.
*/}}
{{- define "waggle.envPlan" -}}
{{- $root := .root }}
{{- $config := merge (dict) (.overrides | default dict) (include "waggle.configValues" $root | fromYaml) }}
{{- $required := list "DATABASE_URL" "REDIS_URL" "WEBHOOK_SECRET_KEY" }}
{{- $plan := dict "config" (dict) "secretData" (dict) "secretRefs" (list) }}
{{- range .env }}
{{- $entryKey := include "waggle.secretKeyOf" .name }}
{{- if or (hasKey $root.Values.secrets $entryKey) (hasKey ($.entries | default dict) .name) }}
{{- $entry := get ($.entries | default dict) .name | default (include "waggle.secretEntry" (dict "root" $root "entry" $entryKey) | fromYaml) }}
{{- if $entry.value }}
{{- $_ := set $plan.secretData .name $entry.value }}
{{- $_ := set $plan "secretRefs" (append $plan.secretRefs (dict "name" .name "secretName" $.secretName "key" .name "optional" false)) }}
{{- else if $entry.existingSecret }}
{{- $_ := set $plan "secretRefs" (append $plan.secretRefs (dict "name" .name "secretName" $entry.existingSecret "key" ($entry.key | default .name) "optional" false)) }}
{{- else if $root.Values.secrets.existingSecret }}
{{- $_ := set $plan "secretRefs" (append $plan.secretRefs (dict "name" .name "secretName" $root.Values.secrets.existingSecret "key" ($entry.key | default .name) "optional" (not (has .name $required)))) }}
{{- end }}
{{- else if .secret }}
{{- fail (printf "%s is a secret variable without a secrets.%s entry in values.yaml: add one (and to values.schema.json)" .name $entryKey) }}
{{- else if hasKey $config .name }}
{{- $_ := set $plan.config .name (index $config .name) }}
{{- end }}
{{- end }}
{{- toYaml $plan }}
{{- end }}

{{/* An app's env plan: (dict "root" $ "name" $name "app" $app). */}}
{{- define "waggle.appEnvPlan" -}}
{{- $manifest := include "waggle.manifest" .root | fromJson }}
{{- $overrides := merge (dict) (.app.env | default dict) (dict "OTEL_SERVICE_NAME" (printf "waggle-%s" .name)) }}
{{- include "waggle.envPlan" (dict "root" .root "env" (index $manifest.apps .name).env "overrides" $overrides "secretName" (include "waggle.appFullname" .)) }}
{{- end }}

{{/* secretKeyRef env entries of a plan's secretRefs (a YAML list). */}}
{{- define "waggle.secretEnv" -}}
{{- range . }}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .secretName | quote }}
      key: {{ .key | quote }}
      {{- if .optional }}
      optional: true
      {{- end }}
{{- end }}
{{- end }}

{{/*
An app's setting: its own field when it has one, else defaults.<field>.
Call with (dict "root" $ "app" $app "field" "resources").
*/}}
{{- define "waggle.appSetting" -}}
{{- if hasKey .app .field }}
{{- toYaml (index .app .field) }}
{{- else }}
{{- toYaml (index .root.Values.defaults .field) }}
{{- end }}
{{- end }}

{{/*
The fewest pods an app runs: its KEDA or HPA minimum, else its replicas.
*/}}
{{- define "waggle.minPods" -}}
{{- if (dig "keda" "enabled" false .) }}
{{- int64 .keda.minReplicas }}
{{- else if .autoscaling.enabled }}
{{- int64 .autoscaling.minReplicas }}
{{- else }}
{{- int64 .replicas }}
{{- end }}
{{- end }}

{{/* Whether an app's replica count is managed by an HPA or KEDA ("true" or nothing). */}}
{{- define "waggle.autoscaled" -}}
{{- if or .autoscaling.enabled (dig "keda" "enabled" false .) }}true{{ end }}
{{- end }}

{{/*
Whether the asset storage is a PersistentVolumeClaim that only one node can mount
("true" or nothing): then the asset Deployment is recreated rather than rolled.
*/}}
{{- define "waggle.assetClaimReadWriteOnce" -}}
{{- $storage := .Values.config.assetStorage }}
{{- if and (eq $storage.driver "filesystem") $storage.persistence.enabled (not (has "ReadWriteMany" $storage.persistence.accessModes)) }}true{{ end }}
{{- end }}

{{- define "waggle.assetClaimName" -}}
{{- .Values.config.assetStorage.persistence.existingClaim | default (include "waggle.objectName" (dict "root" . "suffix" "assets")) }}
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
Pod-level fields shared by the app Deployments, the migrations Job and the test Pod. Call
with (dict "root" $ ["serviceAccountName" <name, empty = none>] "priorityClassName" <name>); without
serviceAccountName, the apps' ServiceAccount. Pull secrets: global.imagePullSecrets, then
imagePullSecrets.
*/}}
{{- define "waggle.podIdentity" -}}
{{- $root := .root }}
{{- with concat (dig "imagePullSecrets" (list) ($root.Values.global | default dict)) $root.Values.imagePullSecrets | uniq }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with hasKey . "serviceAccountName" | ternary .serviceAccountName (include "waggle.serviceAccountName" $root) }}
serviceAccountName: {{ . }}
{{- end }}
{{- with .priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
automountServiceAccountToken: false
enableServiceLinks: false
securityContext:
  {{- toYaml $root.Values.podSecurityContext | nindent 2 }}
{{- end }}
