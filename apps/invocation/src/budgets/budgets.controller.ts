import { Controller } from '@nestjs/common';
import {
  BudgetIdRequest,
  CreateBudgetRequest,
  GovernanceAdminPatterns,
  ListBudgetAlertsRequest,
  UpdateBudgetRequest,
  WorkspaceIdRequest,
  type BudgetAlertView,
  type BudgetView,
  type BudgetWritten,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { BudgetAlerts } from './budget-alerts';
import { BudgetsService } from './budgets.service';

@Controller()
export class BudgetsController {
  constructor(
    private readonly budgets: BudgetsService,
    private readonly alerts: BudgetAlerts,
  ) {}

  @RpcHandler(GovernanceAdminPatterns.listBudgets)
  list(request: WorkspaceIdRequest): Promise<BudgetView[]> {
    return this.budgets.list(request.workspace_id);
  }

  @RpcHandler(GovernanceAdminPatterns.createBudget)
  create(request: CreateBudgetRequest): Promise<BudgetWritten> {
    return this.budgets.create(request.workspace_id, request.budget);
  }

  @RpcHandler(GovernanceAdminPatterns.getBudget)
  get(request: BudgetIdRequest): Promise<BudgetView> {
    return this.budgets.get(request.workspace_id, request.budget_id);
  }

  @RpcHandler(GovernanceAdminPatterns.updateBudget)
  update(request: UpdateBudgetRequest): Promise<BudgetWritten> {
    return this.budgets.update(request.workspace_id, request.budget_id, request.budget);
  }

  @RpcHandler(GovernanceAdminPatterns.deleteBudget)
  delete(request: BudgetIdRequest): Promise<{ id: string }> {
    return this.budgets.delete(request.workspace_id, request.budget_id);
  }

  @RpcHandler(GovernanceAdminPatterns.listBudgetAlerts)
  listAlerts(request: ListBudgetAlertsRequest): Promise<BudgetAlertView[]> {
    return this.alerts.list(request.workspace_id, request.budget_id, request.limit ?? 100);
  }
}
