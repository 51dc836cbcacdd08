{{/*
Named templates. The public ones, for a parent chart (the catalog server's) that embeds the
executor as a sidecar, take this chart's scope, which a parent reaches as
`(index .Subcharts "k8s-job-executor")`:
  k8s-job-executor.sidecarContainer    the container, as one YAML list item
  k8s-job-executor.sidecarVolumes      the volumes it mounts, as YAML list items
  k8s-job-executor.serviceAccountName  the ServiceAccount the pod must run as
*/}}

{{- define "k8s-job-executor.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "k8s-job-executor.fullname" -}}
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

{{- define "k8s-job-executor.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "k8s-job-executor.selectorLabels" -}}
app.kubernetes.io/name: {{ include "k8s-job-executor.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "k8s-job-executor.labels" -}}
helm.sh/chart: {{ include "k8s-job-executor.chart" . }}
{{ include "k8s-job-executor.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: job-executor
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "k8s-job-executor.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "k8s-job-executor.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "k8s-job-executor.image" -}}
{{- $repo := .Values.image.repository }}
{{- if .Values.image.registry }}
{{- $repo = printf "%s/%s" .Values.image.registry .Values.image.repository }}
{{- end }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $repo .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" $repo (default .Chart.AppVersion .Values.image.tag | toString) }}
{{- end }}
{{- end }}

{{/* The default job namespace. */}}
{{- define "k8s-job-executor.defaultNamespace" -}}
{{- if .Values.config.namespace }}
{{- .Values.config.namespace }}
{{- else if .Values.jobNamespaces }}
{{- first .Values.jobNamespaces }}
{{- else }}
{{- .Release.Namespace }}
{{- end }}
{{- end }}

{{/* The job namespaces, as a JSON list (use with fromJsonArray). */}}
{{- define "k8s-job-executor.jobNamespaces" -}}
{{- if .Values.jobNamespaces }}
{{- .Values.jobNamespaces | uniq | toJson }}
{{- else }}
{{- list (include "k8s-job-executor.defaultNamespace" .) | toJson }}
{{- end }}
{{- end }}

{{- define "k8s-job-executor.grpcListenHost" -}}
{{- if .Values.grpc.listenHost }}
{{- .Values.grpc.listenHost }}
{{- else if eq .Values.mode "sidecar" }}
{{- "127.0.0.1" }}
{{- else }}
{{- "0.0.0.0" }}
{{- end }}
{{- end }}

{{/* HOST:PORT, with an IPv6 host in brackets. Argument: (list host port). */}}
{{- define "k8s-job-executor.hostPort" -}}
{{- $host := index . 0 | toString }}
{{- if and (contains ":" $host) (not (hasPrefix "[" $host)) }}
{{- $host = printf "[%s]" $host }}
{{- end }}
{{- printf "%s:%d" $host (int (index . 1)) }}
{{- end }}

{{/* "true" when the gRPC port binds only loopback, which kubelet's probes (to the pod IP) can't reach. */}}
{{- define "k8s-job-executor.grpcLoopback" -}}
{{- $host := include "k8s-job-executor.grpcListenHost" . | trimPrefix "[" | trimSuffix "]" }}
{{- if or (hasPrefix "127." $host) (eq $host "localhost") (eq $host "::1") }}true{{ end }}
{{- end }}

{{- define "k8s-job-executor.sidecar" -}}
{{- if eq .Values.mode "sidecar" }}true{{ end }}
{{- end }}

{{/* Container port names: a sidecar shares the pod's port namespace with the catalog server. */}}
{{- define "k8s-job-executor.grpcPortName" -}}
{{- if include "k8s-job-executor.sidecar" . }}kje-grpc{{ else }}grpc{{ end }}
{{- end }}
{{- define "k8s-job-executor.metricsPortName" -}}
{{- if include "k8s-job-executor.sidecar" . }}kje-metrics{{ else }}metrics{{ end }}
{{- end }}

{{/* Where things are mounted. Separate directories: a Secret can't be mounted inside a ConfigMap volume. */}}
{{- define "k8s-job-executor.configDir" -}}/etc/k8s-job-executor/config{{- end }}
{{- define "k8s-job-executor.tlsDir" -}}/etc/k8s-job-executor/tls{{- end }}
{{- define "k8s-job-executor.clientCaDir" -}}/etc/k8s-job-executor/client-ca{{- end }}
{{- define "k8s-job-executor.authDir" -}}/etc/k8s-job-executor/auth{{- end }}

{{/*
Mode of mounted Secret files. With the chart's pod fsGroup 65532 they need no "other" bit; inside
another chart's pod the fsGroup is unknown, so they must be world-readable within the container.
*/}}
{{- define "k8s-job-executor.secretMode" -}}
{{- if include "k8s-job-executor.sidecar" . }}292{{ else }}288{{ end }}
{{- end }}

{{/* Fails the render on values that can't work, with a message that names the value. */}}
{{- define "k8s-job-executor.validate" -}}
{{- if not (has .Values.mode (list "deployment" "sidecar")) }}
{{- fail (printf "mode must be deployment or sidecar, got %q" (toString .Values.mode)) }}
{{- end }}
{{- range $key, $_ := .Values.config }}
{{- if contains "." $key }}
{{- fail (printf "config.%s: write configuration keys nested, as values.yaml does (a dotted key next to its nested twin is a key set twice for the server)" $key) }}
{{- end }}
{{- end }}
{{- if not (has (.Values.config.operator | default "apache") (list "apache" "kubeflow")) }}
{{- fail (printf "config.operator must be apache or kubeflow, got %q" (toString .Values.config.operator)) }}
{{- end }}
{{- $spark := .Values.config.spark | default dict }}
{{- if not $spark.image }}
{{- fail "config.spark.image is required: the Spark container image of the jobs" }}
{{- end }}
{{- if not $spark.sparkVersion }}
{{- fail "config.spark.sparkVersion is required: the Spark version of that image, e.g. 3.5.5" }}
{{- end }}
{{- $server := .Values.config.server | default dict }}
{{- $owned := dict "listen" "grpc.listenHost and grpc.port" "metricsListen" "metrics.*" "healthListen" "probes.healthPort" "tls" "tls.*" "tokenFile" "auth.token.*" "allowedNamespaces" "jobNamespaces" }}
{{- range $key, $instead := $owned }}
{{- if hasKey $server $key }}
{{- fail (printf "config.server.%s is set by the chart: use %s instead" $key $instead) }}
{{- end }}
{{- end }}
{{- $port := int .Values.grpc.port }}
{{- if or (lt $port 1) (gt $port 65535) }}
{{- fail (printf "grpc.port must be from 1 to 65535, got %v" .Values.grpc.port) }}
{{- end }}
{{- if and .Values.metrics.enabled (eq (int .Values.metrics.port) $port) }}
{{- fail "metrics.port must differ from grpc.port" }}
{{- end }}
{{- $dns1123 := "^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$" }}
{{- $namespaces := include "k8s-job-executor.jobNamespaces" . | fromJsonArray }}
{{- range $namespaces }}
{{- if not (regexMatch $dns1123 (toString .)) }}
{{- fail (printf "jobNamespaces: %q is not a DNS-1123 label" (toString .)) }}
{{- end }}
{{- end }}
{{- $default := include "k8s-job-executor.defaultNamespace" . }}
{{- if not (has $default $namespaces) }}
{{- fail (printf "config.namespace %q must be one of jobNamespaces %v: the executor has rights only there" $default $namespaces) }}
{{- end }}
{{- if and .Values.tls.enabled (not .Values.tls.existingSecret) }}
{{- fail "tls.existingSecret is required when tls.enabled is true" }}
{{- end }}
{{- if and .Values.tls.clientCa.enabled (not .Values.tls.enabled) }}
{{- fail "tls.clientCa.enabled (mutual TLS) needs tls.enabled" }}
{{- end }}
{{- if and (include "k8s-job-executor.execProbesRendered" .) (eq (int .Values.probes.healthPort) (int .Values.grpc.port)) }}
{{- fail "probes.healthPort must differ from grpc.port" }}
{{- end }}
{{- range $name := list "livenessProbe" "readinessProbe" "startupProbe" }}
{{- $probe := index $.Values $name }}
{{- if and $probe.enabled (lt (int $probe.timeoutSeconds) 1) }}
{{- fail (printf "%s.timeoutSeconds must be at least 1" $name) }}
{{- end }}
{{- end }}
{{- if and .Values.auth.token.enabled (not .Values.auth.token.existingSecret) }}
{{- fail "auth.token.existingSecret is required when auth.token.enabled is true" }}
{{- end }}
{{- if not (has (toString .Values.podDisruptionBudget.enabled) (list "auto" "true" "false")) }}
{{- fail (printf "podDisruptionBudget.enabled must be auto, true or false, got %q" (toString .Values.podDisruptionBudget.enabled)) }}
{{- end }}
{{- if not (include "k8s-job-executor.sidecar" .) }}
{{- $drainMs := int64 (default 15000 $server.drainTimeoutMs) }}
{{- if ge $drainMs (mul (int64 .Values.terminationGracePeriodSeconds) 1000) }}
{{- fail (printf "config.server.drainTimeoutMs (%d) must be below terminationGracePeriodSeconds (%v s), or the kubelet kills the drain" $drainMs .Values.terminationGracePeriodSeconds) }}
{{- end }}
{{- end }}
{{- end }}

{{/* The server's configuration file (YAML; see server/config.h). */}}
{{- define "k8s-job-executor.configYaml" -}}
{{- $cfg := deepCopy .Values.config }}
{{- $server := dict }}
{{- if kindIs "map" $cfg.server }}
{{- $server = $cfg.server }}
{{- end }}
{{- $_ := set $cfg "namespace" (include "k8s-job-executor.defaultNamespace" .) }}
{{- $_ = set $server "listen" (include "k8s-job-executor.hostPort" (list (include "k8s-job-executor.grpcListenHost" .) .Values.grpc.port)) }}
{{- if .Values.metrics.enabled }}
{{- $_ = set $server "metricsListen" (include "k8s-job-executor.hostPort" (list .Values.metrics.listenHost .Values.metrics.port)) }}
{{- end }}
{{- if include "k8s-job-executor.execProbesRendered" . }}
{{- $_ = set $server "healthListen" (include "k8s-job-executor.probeServer" .) }}
{{- end }}
{{- if .Values.tls.enabled }}
{{- $tls := dict "certFile" (printf "%s/tls.crt" (include "k8s-job-executor.tlsDir" .)) "keyFile" (printf "%s/tls.key" (include "k8s-job-executor.tlsDir" .)) }}
{{- if .Values.tls.clientCa.enabled }}
{{- $dir := include "k8s-job-executor.tlsDir" . }}
{{- if .Values.tls.clientCa.existingSecret }}
{{- $dir = include "k8s-job-executor.clientCaDir" . }}
{{- end }}
{{- $_ = set $tls "clientCaFile" (printf "%s/ca.crt" $dir) }}
{{- end }}
{{- $_ = set $server "tls" $tls }}
{{- end }}
{{- if .Values.auth.token.enabled }}
{{- $_ = set $server "tokenFile" (printf "%s/token" (include "k8s-job-executor.authDir" .)) }}
{{- end }}
{{- $_ = set $server "allowedNamespaces" (include "k8s-job-executor.jobNamespaces" . | fromJsonArray) }}
{{- /* A Deployment replica takes traffic once it can see its jobs; a sidecar serves its own pod
  at once (its catalog server waits for nothing else). An explicit value wins. */}}
{{- if not (hasKey $server "readinessRequiresSync") }}
{{- $_ = set $server "readinessRequiresSync" (not (include "k8s-job-executor.sidecar" .)) }}
{{- end }}
{{- $_ = set $cfg "server" $server }}
{{- toYaml $cfg }}
{{- end }}

{{/* The rules of the Role in each job namespace: exactly what the executor calls, on the
  configured operator's resource only. */}}
{{- define "k8s-job-executor.policyRules" -}}
- apiGroups: [{{ if eq (.Values.config.operator | default "apache") "kubeflow" }}"sparkoperator.k8s.io"{{ else }}"spark.apache.org"{{ end }}]
  resources: ["sparkapplications"]
  verbs: ["create", "get", "list", "watch", "patch", "delete"]
{{- if eq (.Values.config.operator | default "apache") "kubeflow" }}
{{- /* The schedule RPCs: only kubeflow/spark-operator has ScheduledSparkApplications. */}}
- apiGroups: ["sparkoperator.k8s.io"]
  resources: ["scheduledsparkapplications"]
  verbs: ["create", "get", "list", "patch", "delete"]
- apiGroups: ["sparkoperator.k8s.io"]
  resources: ["scheduledsparkapplications/status"]
  verbs: ["patch"]
{{- end }}
- apiGroups: [""]
  resources: ["pods"]
{{- /* delete: a failed job's orphan driver (apache), and a Cancel that keeps the record (the apache driver, the executors kubeflow/spark-operator leaves behind when suspended). */}}
  verbs: ["list", "delete"]
- apiGroups: [""]
  resources: ["pods/log"]
  verbs: ["get"]
- apiGroups: [""]
  resources: ["pods/proxy"]
  verbs: ["get"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["list"]
{{- if (.Values.config.spark).environmentSecrets }}
{{- /* A template's environment variables go into a Secret per job, owned by its application (delete: when the application is refused). */}}
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create", "get", "patch", "delete"]
{{- end }}
{{- if ne ((.Values.config.output).keep | toString) "false" }}
{{- /* The kept record of an ended job (output.keep, on by default): created once by whichever replica sees the end first, read by Output, FollowOutput and Events once the driver is gone. */}}
- apiGroups: [""]
  resources: [{{ if (.Values.config.output).keepAsSecret }}"secrets"{{ else }}"configmaps"{{ end }}]
  verbs: ["create", "get"]
{{- end }}
{{- if eq ((.Values.config.queue).scheduler | default "none") "kueue" }}
{{- /* Queues on Kueue: a job's Workload says why it waits in its queue. */}}
- apiGroups: ["kueue.x-k8s.io"]
  resources: ["workloads"]
  verbs: ["get", "list", "watch"]
{{- end }}
{{- end }}

{{/*
"true" when the probes must run inside the container (exec of the `health` command): the kubelet's
gRPC probe speaks no TLS, and it dials the pod IP, which a loopback listener never answers.
*/}}
{{- define "k8s-job-executor.execProbes" -}}
{{- if or .Values.tls.enabled (include "k8s-job-executor.grpcLoopback" .) }}true{{ end }}
{{- end }}

{{/* "true" when at least one exec probe is rendered: only then are its files mounted. */}}
{{- define "k8s-job-executor.execProbesRendered" -}}
{{- if and (include "k8s-job-executor.execProbes" .) (or .Values.livenessProbe.enabled .Values.readinessProbe.enabled .Values.startupProbe.enabled) }}true{{ end }}
{{- end }}

{{/*
HOST:PORT the exec probes dial inside the container: the server's health-only port
(server.healthListen), plaintext on loopback, so they need no CA, certificate name or client
certificate whatever the gRPC port's TLS.
*/}}
{{- define "k8s-job-executor.probeServer" -}}
{{- include "k8s-job-executor.hostPort" (list "127.0.0.1" .Values.probes.healthPort) }}
{{- end }}
{{- define "k8s-job-executor.binary" -}}/usr/local/bin/k8s-job-executor{{- end }}

{{/* A probe's handler. Argument: (dict "root" $ "service" NAME "timeoutSeconds" N). */}}
{{- define "k8s-job-executor.probeHandler" -}}
{{- $root := .root }}
{{- if include "k8s-job-executor.execProbes" $root }}
{{- /* The command's own deadline stays below the kubelet's timeout, which also covers the process start. */}}
exec:
  command:
    - {{ include "k8s-job-executor.binary" $root }}
    - health
    - --server
    - {{ include "k8s-job-executor.probeServer" $root | quote }}
    - --service
    - {{ .service }}
    - --timeout
    - {{ max 1 (sub (int .timeoutSeconds) 1) }}s
{{- else }}
grpc:
  port: {{ int $root.Values.grpc.port }}
  service: {{ .service | quote }}
{{- end }}
{{- end }}

{{- define "k8s-job-executor.probes" -}}
{{- with .Values.startupProbe }}
{{- if .enabled }}
startupProbe:
  {{- include "k8s-job-executor.probeHandler" (dict "root" $ "service" "liveness" "timeoutSeconds" .timeoutSeconds) | trim | nindent 2 }}
  periodSeconds: {{ .periodSeconds }}
  timeoutSeconds: {{ .timeoutSeconds }}
  failureThreshold: {{ .failureThreshold }}
{{- end }}
{{- end }}
{{- with .Values.livenessProbe }}
{{- if .enabled }}
livenessProbe:
  {{- include "k8s-job-executor.probeHandler" (dict "root" $ "service" "liveness" "timeoutSeconds" .timeoutSeconds) | trim | nindent 2 }}
  initialDelaySeconds: {{ .initialDelaySeconds }}
  periodSeconds: {{ .periodSeconds }}
  timeoutSeconds: {{ .timeoutSeconds }}
  failureThreshold: {{ .failureThreshold }}
  successThreshold: {{ .successThreshold }}
{{- end }}
{{- end }}
{{- with .Values.readinessProbe }}
{{- if .enabled }}
readinessProbe:
  {{- include "k8s-job-executor.probeHandler" (dict "root" $ "service" "jobexecutor.v1.JobExecutor" "timeoutSeconds" .timeoutSeconds) | trim | nindent 2 }}
  initialDelaySeconds: {{ .initialDelaySeconds }}
  periodSeconds: {{ .periodSeconds }}
  timeoutSeconds: {{ .timeoutSeconds }}
  failureThreshold: {{ .failureThreshold }}
  successThreshold: {{ .successThreshold }}
{{- end }}
{{- end }}
{{- end }}

{{/* The executor container, as one YAML list item. */}}
{{- define "k8s-job-executor.container" -}}
- name: k8s-job-executor
  image: {{ include "k8s-job-executor.image" . | quote }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  args:
    - serve
    - --config
    - {{ include "k8s-job-executor.configDir" . }}/config.yaml
  ports:
    {{- if not (include "k8s-job-executor.grpcLoopback" .) }}
    - name: {{ include "k8s-job-executor.grpcPortName" . }}
      containerPort: {{ int .Values.grpc.port }}
      protocol: TCP
    {{- end }}
    {{- if .Values.metrics.enabled }}
    - name: {{ include "k8s-job-executor.metricsPortName" . }}
      containerPort: {{ int .Values.metrics.port }}
      protocol: TCP
    {{- end }}
  {{- with .Values.extraEnv }}
  env:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with (include "k8s-job-executor.probes" .) }}
  {{- . | trim | nindent 2 }}
  {{- end }}
  resources:
    {{- toYaml .Values.resources | nindent 4 }}
  securityContext:
    {{- toYaml .Values.containerSecurityContext | nindent 4 }}
  volumeMounts:
    - name: kje-config
      mountPath: {{ include "k8s-job-executor.configDir" . }}
      readOnly: true
    - name: kje-tmp
      mountPath: /tmp
    {{- if .Values.tls.enabled }}
    - name: kje-tls
      mountPath: {{ include "k8s-job-executor.tlsDir" . }}
      readOnly: true
    {{- if and .Values.tls.clientCa.enabled .Values.tls.clientCa.existingSecret }}
    - name: kje-client-ca
      mountPath: {{ include "k8s-job-executor.clientCaDir" . }}
      readOnly: true
    {{- end }}
    {{- end }}
    {{- if .Values.auth.token.enabled }}
    - name: kje-auth
      mountPath: {{ include "k8s-job-executor.authDir" . }}
      readOnly: true
    {{- end }}
    {{- with .Values.extraVolumeMounts }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end }}

{{/*
The pod volumes the container mounts, as YAML list items. Whole-volume mounts (no subPath), so
the kubelet's updates of a rotated Secret reach the server, which re-reads the files.
*/}}
{{- define "k8s-job-executor.volumes" -}}
- name: kje-config
  configMap:
    name: {{ include "k8s-job-executor.fullname" . }}
- name: kje-tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpDir.sizeLimit }}
{{- if .Values.tls.enabled }}
- name: kje-tls
  secret:
    secretName: {{ .Values.tls.existingSecret }}
    defaultMode: {{ include "k8s-job-executor.secretMode" . }}
    items:
      - key: {{ .Values.tls.certKey }}
        path: tls.crt
      - key: {{ .Values.tls.keyKey }}
        path: tls.key
      {{- if and .Values.tls.clientCa.enabled (not .Values.tls.clientCa.existingSecret) }}
      - key: {{ .Values.tls.clientCa.key }}
        path: ca.crt
      {{- end }}
{{- if and .Values.tls.clientCa.enabled .Values.tls.clientCa.existingSecret }}
- name: kje-client-ca
  secret:
    secretName: {{ .Values.tls.clientCa.existingSecret }}
    defaultMode: {{ include "k8s-job-executor.secretMode" . }}
    items:
      - key: {{ .Values.tls.clientCa.key }}
        path: ca.crt
{{- end }}
{{- end }}
{{- if .Values.auth.token.enabled }}
- name: kje-auth
  secret:
    secretName: {{ .Values.auth.token.existingSecret }}
    defaultMode: {{ include "k8s-job-executor.secretMode" . }}
    items:
      - key: {{ .Values.auth.token.key }}
        path: token
{{- end }}
{{- with .Values.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "k8s-job-executor.sidecarContainer" -}}
{{- include "k8s-job-executor.validate" . }}
{{- include "k8s-job-executor.container" . }}
{{- end }}

{{- define "k8s-job-executor.sidecarVolumes" -}}
{{- include "k8s-job-executor.volumes" . }}
{{- end }}
