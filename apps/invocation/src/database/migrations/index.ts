import type { MigrationInterface } from 'typeorm';
import { CreatePromptTables1763772000000 } from './1763772000000-create-prompt-tables';
import { CreateRequestLedger1763775600000 } from './1763775600000-create-request-ledger';
import { SealWebhookSecrets1763900000000 } from './1763900000000-seal-webhook-secrets';
import { IndexRequestsByUser1764000000000 } from './1764000000000-index-requests-by-user';
import { CreateWorkflowDeploymentTables1765000000000 } from './1765000000000-create-workflow-deployment-tables';
import { CreateWorkflowRunTables1765000100000 } from './1765000100000-create-workflow-run-tables';
import { AddLedgerDeadLetters1795508988289 } from './1795508988289-add-ledger-dead-letters';
import { AddWorkflowRunErrorDetail1795536123503 } from './1795536123503-add-workflow-run-error-detail';
import { AddWorkflowSlots1795544341008 } from './1795544341008-add-workflow-slots';
import { AddStepModelAttempts1795600000000 } from './1795600000000-add-step-model-attempts';
import { AddPromptFallbacksResponseFormat1795600100000 } from './1795600100000-add-prompt-fallbacks-response-format';
import { AddRequestTraceId1795600100001 } from './1795600100001-add-request-trace-id';
import { AddRequestSurface1795878561943 } from './1795878561943-add-request-surface';
import { AddMcpPublishAndRunSurface1795890442050 } from './1795890442050-add-mcp-publish-and-run-surface';
import { CreateUsageGovernanceTables1795900722067 } from './1795900722067-create-usage-governance-tables';
import { AddProviderCredentials1795900876929 } from './1795900876929-add-provider-credentials';
import { AddRequestCost1795901070390 } from './1795901070390-add-request-cost';
import { AddWorkflowRunCost1795903037455 } from './1795903037455-add-workflow-run-cost';
import { CreateExperimentTables1795911033612 } from './1795911033612-create-experiment-tables';
import { CreateDatasetTables1795910931155 } from './1795910931155-create-dataset-tables';
import { AddReleases1795911187743 } from './1795911187743-add-releases';
import { IndexRequestsByModelAndApiKey1795920000000 } from './1795920000000-index-requests-by-model-and-api-key';

/** Every migration of this service, oldest first. `npm run migration:generate` appends here. */
export const MIGRATIONS: Array<new () => MigrationInterface> = [
  CreatePromptTables1763772000000,
  CreateRequestLedger1763775600000,
  SealWebhookSecrets1763900000000,
  IndexRequestsByUser1764000000000,
  CreateWorkflowDeploymentTables1765000000000,
  CreateWorkflowRunTables1765000100000,
  AddLedgerDeadLetters1795508988289,
  AddWorkflowRunErrorDetail1795536123503,
  AddWorkflowSlots1795544341008,
  AddStepModelAttempts1795600000000,
  AddPromptFallbacksResponseFormat1795600100000,
  AddRequestTraceId1795600100001,
  AddRequestSurface1795878561943,
  AddMcpPublishAndRunSurface1795890442050,
  CreateUsageGovernanceTables1795900722067,
  AddProviderCredentials1795900876929,
  AddRequestCost1795901070390,
  AddWorkflowRunCost1795903037455,
  CreateExperimentTables1795911033612,
  CreateDatasetTables1795910931155,
  AddReleases1795911187743,
  IndexRequestsByModelAndApiKey1795920000000,
];
