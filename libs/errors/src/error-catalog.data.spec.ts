import { describeErrorCode } from './error-catalog';
import { ERROR_CATALOG, type ErrorCatalogEntryData, type ErrorCode } from './error-catalog.data';

/**
 * [code, usual status] for every row of the public spec's table
 * "Error codes (field is always `error_code`)", copied in the spec's order.
 * Where the spec gives two statuses ("400 or 422", "502 or 504"), the usual one is listed here.
 */
const SPEC_CODES: ReadonlyArray<readonly [string, number]> = [
  ['model_deprecated', 422],
  ['personal_model_missing_credentials', 422],
  ['personal_model_invalid_credentials', 422],
  ['insufficient_hosted_llm_credits', 402],
  ['account_credit_cap_reached', 422],
  ['asset_storage_limit_reached', 402],
  ['vision_not_supported', 422],
  ['workflow_step_limit_reached', 402],
  ['workspace_limit_reached', 402],
  ['api_rate_limit_exceeded', 429],
  ['guest_limit_exceeded', 429],
  ['guest_signup_required', 403],
  ['guest_session_required', 403],
  ['guest_unavailable', 503],
  ['provider_tool_rate_limit_exceeded', 429],
  ['log_range_limit_exceeded', 402],
  ['experiment_run_result_limit_exceeded', 422],
  ['experiment_candidate_type_unsupported', 422],
  ['experiment_run_unsupported_candidates', 422],
  ['experiment_dataset_row_limit_exceeded', 422],
  ['experiment_run_start_failed', 503],
  ['iteration_limit_exceeded', 422],
  ['internal_server_error', 500],
  ['too_many_requests', 429],
  ['concurrency_limit_reached', 429],
  ['validation_error', 422],
  ['unsupported_provider', 400],
  ['database_error', 500],
  ['config_error', 500],
  ['provider_error', 502],
  ['agent_completion_persistence_failed', 503],
  ['upstream_request_failed', 502],
  ['workflow_enqueue_failed', 500],
  ['not_found', 404],
  ['resource_not_found', 404],
  ['invalid_access', 401],
  ['unauthorized', 401],
  ['forbidden', 403],
  ['invalid_api_key', 401],
  ['invalid_request', 400],
  ['missing_required_field', 422],
  ['missing_required_header', 400],
  ['validation_failed', 422],
  ['payment_failed', 422],
  ['credit_pack_pricing_changed', 409],
  ['invalid_hosted_llm_credit_amount', 422],
  ['billing_configuration_missing', 422],
  ['stripe_customer_creation_failed', 422],
  ['promotion_code_invalid', 200],
  ['archive_restore_conflict', 409],
  ['completion_resolution_failed', 500],
  ['integration_connection_failed', 502],
  ['webhook_signature_invalid', 400],
  ['webhook_signature_not_configured', 500],
  ['webhook_payload_invalid', 400],
  ['mcp_connection_failed', 422],
  ['unsupported_resource_type', 400],
];

/** Codes the project adds beyond the spec's table (decisions, "Beyond the contract": new error codes), after it. */
const ADDED_CODES: ReadonlyArray<readonly [string, number]> = [
  ['idempotency_key_in_use', 409],
  ['idempotency_key_reused', 422],
  ['run_cancelled', 409],
  ['mcp_tool_not_approved', 409],
  ['mcp_tool_failed', 502],
  ['release_gate_not_satisfied', 409],
  ['release_rollback_unavailable', 409],
];

const ALLOWED_PLACEHOLDERS: Record<string, readonly string[]> = {
  model_deprecated: ['%{model}'],
  api_rate_limit_exceeded: ['%{limit}'],
};

const entries = Object.entries(ERROR_CATALOG) as Array<[string, ErrorCatalogEntryData]>;

describe('ERROR_CATALOG', () => {
  it('the hard-coded spec list has 57 distinct codes', () => {
    expect(SPEC_CODES).toHaveLength(57);
    expect(new Set(SPEC_CODES.map(([code]) => code)).size).toBe(57);
  });

  it('has exactly the spec codes, in the spec order, then the added ones', () => {
    expect(Object.keys(ERROR_CATALOG)).toEqual([...SPEC_CODES, ...ADDED_CODES].map(([code]) => code));
  });

  it.each([...SPEC_CODES, ...ADDED_CODES])('%s has status %i', (code, status) => {
    expect((ERROR_CATALOG as Record<string, ErrorCatalogEntryData>)[code]?.status).toBe(status);
  });

  it('keeps promotion_code_invalid at 200 as the spec says', () => {
    expect(ERROR_CATALOG.promotion_code_invalid.status).toBe(200);
  });

  it('carries the alternate statuses of the two-status codes (resource_not_found: 422 for agents, knowledge bases, data sets; invalid_request: 415 for an unreadable encoding or media type, 405 for a method the MCP endpoint does not serve), and none elsewhere', () => {
    expect(ERROR_CATALOG.validation_error.status).toBe(422);
    expect([...ERROR_CATALOG.validation_error.alternateStatuses].sort()).toEqual([400, 413]);
    expect(ERROR_CATALOG.upstream_request_failed.status).toBe(502);
    expect([...ERROR_CATALOG.upstream_request_failed.alternateStatuses]).toEqual([504, 503]);
    expect(ERROR_CATALOG.resource_not_found.status).toBe(404);
    expect([...ERROR_CATALOG.resource_not_found.alternateStatuses]).toEqual([422]);
    expect(ERROR_CATALOG.invalid_request.status).toBe(400);
    expect([...ERROR_CATALOG.invalid_request.alternateStatuses]).toEqual([405, 415, 417]);
    const twoStatus = ['validation_error', 'upstream_request_failed', 'resource_not_found', 'invalid_request'];
    for (const [code, entry] of entries) {
      if (twoStatus.includes(code)) continue;
      expect({ code, alternateStatuses: entry.alternateStatuses }).toEqual({ code, alternateStatuses: [] });
    }
  });

  it('lists `code` as the alias field of every code but the concurrency cap (decisions: `code` on every body)', () => {
    for (const code of Object.keys(ERROR_CATALOG) as ErrorCode[]) {
      const expected = code === 'concurrency_limit_reached' ? [] : ['code'];
      expect({ code, field_aliases: describeErrorCode(code, 'en').field_aliases }).toEqual({ code, field_aliases: expected });
    }
  });

  it('has non-empty en and es message and client_action for every entry', () => {
    for (const [code, entry] of entries) {
      for (const locale of ['en', 'es'] as const) {
        const text = entry.text[locale];
        expect({ code, locale, ok: text.message.trim().length > 0 }).toEqual({ code, locale, ok: true });
        expect({ code, locale, ok: text.client_action.trim().length > 0 }).toEqual({ code, locale, ok: true });
      }
    }
  });

  it('has Spanish text that differs from the English text for every entry', () => {
    for (const [code, entry] of entries) {
      expect({ code, same: entry.text.es.message === entry.text.en.message }).toEqual({ code, same: false });
      expect({ code, same: entry.text.es.client_action === entry.text.en.client_action }).toEqual({
        code,
        same: false,
      });
    }
  });

  it('keeps the %{model} placeholder in both locales of model_deprecated', () => {
    expect(ERROR_CATALOG.model_deprecated.text.en.message).toContain('%{model}');
    expect(ERROR_CATALOG.model_deprecated.text.es.message).toContain('%{model}');
  });

  it('uses only the documented placeholders, identically in both locales', () => {
    for (const [code, entry] of entries) {
      const allowed = ALLOWED_PLACEHOLDERS[code] ?? [];
      const en = entry.text.en.message.match(/%\{[^}]*\}/g) ?? [];
      const es = entry.text.es.message.match(/%\{[^}]*\}/g) ?? [];
      expect({ code, placeholders: en }).toEqual({ code, placeholders: [...allowed] });
      expect({ code, placeholders: es }).toEqual({ code, placeholders: [...allowed] });
      for (const action of [entry.text.en.client_action, entry.text.es.client_action]) {
        expect({ code, action, placeholder: /%\{/.test(action) }).toEqual({ code, action, placeholder: false });
      }
    }
  });

  it('assigns a known category to every entry', () => {
    const categories = [
      'runtime',
      'auth',
      'validation',
      'limits',
      'billing',
      'provider',
      'guest',
      'experiment',
      'webhook',
      'integration',
      'not_found',
    ];
    for (const [code, entry] of entries) {
      expect({ code, known: categories.includes(entry.category) }).toEqual({ code, known: true });
    }
    expect(ERROR_CATALOG.internal_server_error.category).toBe('runtime');
  });
});
