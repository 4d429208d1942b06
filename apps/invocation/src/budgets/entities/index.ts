import { BudgetAlertEntity } from './budget-alert.entity';
import { BudgetEntity } from './budget.entity';

export const BUDGET_ENTITIES = [BudgetEntity, BudgetAlertEntity];
