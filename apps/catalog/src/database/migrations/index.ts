import type { MigrationInterface } from 'typeorm';
import { CreateCatalogTables1763769600000 } from './1763769600000-create-catalog-tables';
import { AddWorkflowStepLimit1765000200000 } from './1765000200000-add-workflow-step-limit';
import { AddPlanHostedCredits1795900695768 } from './1795900695768-add-plan-hosted-credits';
import { AddModelPricing1795900732157 } from './1795900732157-add-model-pricing';

/** Every migration of this service, oldest first. `npm run migration:generate` appends here. */
export const MIGRATIONS: Array<new () => MigrationInterface> = [
  CreateCatalogTables1763769600000,
  AddWorkflowStepLimit1765000200000,
  AddPlanHostedCredits1795900695768,
  AddModelPricing1795900732157,
];
