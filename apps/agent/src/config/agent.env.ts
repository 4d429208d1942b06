import { DEFAULT_ATTACHMENT_MAX_BYTES, DEFAULT_ATTACHMENT_TIMEOUT_MS } from '@waggle/documents';
import { EnvVar, ServiceEnv, WithProviderCredentials, WithRedis, WithWebhookOwner, WithWebhookSecretKey } from '@waggle/platform';
import { IsInt, IsString, Max, Min } from 'class-validator';

export class AgentEnv extends WithWebhookOwner(WithWebhookSecretKey(WithProviderCredentials(WithRedis(ServiceEnv)))) {
  override PORT: number = 3102;

  @EnvVar('Tool calls one agent run may make when the agent sets no max_tool_calls; at the cap the model answers without tools')
  @IsInt()
  @Min(0)
  @Max(1000)
  AGENT_DEFAULT_MAX_TOOL_CALLS: number = 10;

  @EnvVar('Output tokens kept free for the answer when a thread is windowed to the model context, if the agent sets no max_token')
  @IsInt()
  @Min(256)
  AGENT_ANSWER_RESERVE_TOKENS: number = 4096;

  @EnvVar('Longest a webhook-triggered agent run may take, tool calls included (ms); past it the run fails with provider_error')
  @IsInt()
  @Min(1_000)
  @Max(3_600_000)
  AGENT_TRIGGER_TIMEOUT_MS: number = 300_000;

  @EnvVar('Agent webhook triggers run at once by each agent replica')
  @IsInt()
  @Min(1)
  @Max(1000)
  AGENT_TRIGGER_CONCURRENCY: number = 16;

  @EnvVar('How long a worker holds an agent trigger without renewing its lock before another worker takes the run over (ms)')
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  AGENT_TRIGGER_LOCK_MS: number = 30_000;

  @EnvVar(
    'Hosts, IP addresses and CIDR ranges attachments may be fetched from although they are not public (comma-separated; e.g. 127.0.0.1 in development and tests). https is required either way',
  )
  @IsString()
  ATTACHMENT_URL_ALLOWLIST: string = '';

  @EnvVar('Largest attachment read_file fetches (bytes)')
  @IsInt()
  @Min(1024)
  ATTACHMENT_MAX_BYTES: number = DEFAULT_ATTACHMENT_MAX_BYTES;

  @EnvVar('Time cap of one attachment fetch, redirects and body included (ms)')
  @IsInt()
  @Min(100)
  @Max(600_000)
  ATTACHMENT_TIMEOUT_MS: number = DEFAULT_ATTACHMENT_TIMEOUT_MS;

  @EnvVar(
    'Hosts, IP addresses and CIDR ranges workspace MCP servers may be reached at although they are not public (comma-separated, as CALLBACK_URL_ALLOWLIST; e.g. 127.0.0.1 in development and tests). A host listed here may also use http; any other needs https',
  )
  @IsString()
  MCP_URL_ALLOWLIST: string = '';

  @EnvVar(
    "Hosts, IP addresses or CIDR ranges a workspace's provider base URL (its own provider credentials) may point at although they are not public https hosts (comma-separated, as CALLBACK_URL_ALLOWLIST; empty in production)",
  )
  @IsString()
  PROVIDER_URL_ALLOWLIST: string = '';

  @EnvVar(
    'A PEM file of extra certificate authorities trusted for attachment fetches (besides the public ones and NODE_EXTRA_CA_CERTS); verification stays on',
  )
  @IsString()
  ATTACHMENT_EXTRA_CA_FILE: string = '';
}
