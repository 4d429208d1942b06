/**
 * The public error-code catalog, as data.
 *
 * One entry per code of the public spec's table "Error codes (field is always
 * `error_code`)", in the spec's order and with the spec's status, then the codes the
 * decisions add ("Beyond the contract": idempotency, cancellation and MCP). Serves both the
 * error bodies (`message`, `error_code` and its deprecated alias `code`)
 * and `GET /v1/error_codes?locale=`.
 *
 * Placeholders in messages (substituted by the caller; left as-is when no value is given):
 * - `%{model}` in `model_deprecated`: the name of the saved model that is no longer available.
 * - `%{limit}` in `api_rate_limit_exceeded`: the plan's daily API request cap
 *   (`rate_limit_per_day`). The daily count resets at midnight UTC.
 * No other message carries a placeholder.
 *
 * Messages are user-facing: they never name secrets, stack traces or internal infrastructure.
 */

export type ErrorCategory =
  'runtime' | 'auth' | 'validation' | 'limits' | 'billing' | 'provider' | 'guest' | 'experiment' | 'webhook' | 'integration' | 'not_found';

export type SupportedLocale = 'en' | 'es';

export interface LocalizedErrorText {
  message: string;
  client_action: string;
}

export interface ErrorCatalogEntryData {
  /** The usual HTTP status, the one the public catalog lists. */
  status: number;
  /** Other statuses the code may be raised with (e.g. validation_error also 400 and 413; upstream_request_failed also 504). */
  alternateStatuses: readonly number[];
  category: ErrorCategory;
  text: Record<SupportedLocale, LocalizedErrorText>;
}

export const ERROR_CATALOG = {
  model_deprecated: {
    status: 422,
    alternateStatuses: [],
    category: 'provider',
    text: {
      en: {
        message: 'The model %{model} is no longer available. Choose another model.',
        client_action: 'Update the prompt to use an available model, then retry.',
      },
      es: {
        message: 'El modelo %{model} ya no está disponible. Elija otro modelo.',
        client_action: 'Actualice el prompt para usar un modelo disponible y vuelva a intentarlo.',
      },
    },
  },
  personal_model_missing_credentials: {
    status: 422,
    alternateStatuses: [],
    category: 'provider',
    text: {
      en: {
        message: 'This personal model has no provider credentials configured.',
        client_action: 'Add your provider credentials for this model, then retry.',
      },
      es: {
        message: 'Este modelo personal no tiene credenciales del proveedor configuradas.',
        client_action: 'Añada sus credenciales del proveedor para este modelo y vuelva a intentarlo.',
      },
    },
  },
  personal_model_invalid_credentials: {
    status: 422,
    alternateStatuses: [],
    category: 'provider',
    text: {
      en: {
        message: 'The model provider rejected the credentials for this personal model.',
        client_action: 'Check or replace your provider credentials, then retry.',
      },
      es: {
        message: 'El proveedor del modelo rechazó las credenciales de este modelo personal.',
        client_action: 'Revise o sustituya sus credenciales del proveedor y vuelva a intentarlo.',
      },
    },
  },
  insufficient_hosted_llm_credits: {
    status: 402,
    alternateStatuses: [],
    category: 'billing',
    text: {
      en: {
        message: 'There are not enough hosted LLM credits to run this request.',
        client_action: 'Buy more hosted LLM credits or use a personal model, then retry.',
      },
      es: {
        message: 'No hay suficientes créditos de LLM alojado para ejecutar esta solicitud.',
        client_action: 'Compre más créditos de LLM alojado o use un modelo personal y vuelva a intentarlo.',
      },
    },
  },
  account_credit_cap_reached: {
    status: 422,
    alternateStatuses: [],
    category: 'billing',
    text: {
      en: {
        message: 'The account has reached its credit cap.',
        client_action: 'Raise the credit cap or add credits to the account, then retry.',
      },
      es: {
        message: 'La cuenta ha alcanzado su límite de créditos.',
        client_action: 'Aumente el límite de créditos o añada créditos a la cuenta y vuelva a intentarlo.',
      },
    },
  },
  asset_storage_limit_reached: {
    status: 402,
    alternateStatuses: [],
    category: 'billing',
    text: {
      en: {
        message: 'The asset storage limit of your plan has been reached.',
        client_action: 'Delete unused assets or upgrade your plan, then retry.',
      },
      es: {
        message: 'Se ha alcanzado el límite de almacenamiento de recursos de su plan.',
        client_action: 'Elimine los recursos que no use o mejore su plan y vuelva a intentarlo.',
      },
    },
  },
  vision_not_supported: {
    status: 422,
    alternateStatuses: [],
    category: 'provider',
    text: {
      en: {
        message: 'The selected model cannot process images.',
        client_action: 'Choose a model that supports images, or send the request without images.',
      },
      es: {
        message: 'El modelo seleccionado no puede procesar imágenes.',
        client_action: 'Elija un modelo compatible con imágenes o envíe la solicitud sin imágenes.',
      },
    },
  },
  workflow_step_limit_reached: {
    status: 402,
    alternateStatuses: [],
    category: 'billing',
    text: {
      en: {
        message: 'The workflow step limit of your plan has been reached.',
        client_action: 'Remove steps from the workflow or upgrade your plan.',
      },
      es: {
        message: 'Se ha alcanzado el límite de pasos de flujo de trabajo de su plan.',
        client_action: 'Elimine pasos del flujo de trabajo o mejore su plan.',
      },
    },
  },
  workspace_limit_reached: {
    status: 402,
    alternateStatuses: [],
    category: 'billing',
    text: {
      en: {
        message: 'The workspace limit of your plan has been reached.',
        client_action: 'Delete an unused workspace or upgrade your plan.',
      },
      es: {
        message: 'Se ha alcanzado el límite de espacios de trabajo de su plan.',
        client_action: 'Elimine un espacio de trabajo que no use o mejore su plan.',
      },
    },
  },
  api_rate_limit_exceeded: {
    status: 429,
    alternateStatuses: [],
    category: 'limits',
    text: {
      // %{limit} names the plan's daily API request cap; the count resets at midnight UTC.
      en: {
        message: 'Daily API request limit of %{limit} reached. The limit resets at midnight UTC.',
        client_action: 'Wait until the limit resets at midnight UTC or upgrade your plan.',
      },
      es: {
        message: 'Se alcanzó el límite diario de %{limit} solicitudes a la API. El límite se restablece a medianoche UTC.',
        client_action: 'Espere a que el límite se restablezca a medianoche UTC o mejore su plan.',
      },
    },
  },
  guest_limit_exceeded: {
    status: 429,
    alternateStatuses: [],
    category: 'guest',
    text: {
      en: {
        message: 'The guest chat usage limit has been reached.',
        client_action: 'Sign up to keep chatting, or try again later.',
      },
      es: {
        message: 'Se ha alcanzado el límite de uso del chat para invitados.',
        client_action: 'Regístrese para seguir conversando o inténtelo de nuevo más tarde.',
      },
    },
  },
  guest_signup_required: {
    status: 403,
    alternateStatuses: [],
    category: 'guest',
    text: {
      en: {
        message: 'This feature is not available to guests.',
        client_action: 'Sign up or log in to use this feature.',
      },
      es: {
        message: 'Esta función no está disponible para invitados.',
        client_action: 'Regístrese o inicie sesión para usar esta función.',
      },
    },
  },
  guest_session_required: {
    status: 403,
    alternateStatuses: [],
    category: 'guest',
    text: {
      en: {
        message: 'The guest session is missing or has expired.',
        client_action: 'Start a new guest session, then retry.',
      },
      es: {
        message: 'La sesión de invitado no existe o ha caducado.',
        client_action: 'Inicie una nueva sesión de invitado y vuelva a intentarlo.',
      },
    },
  },
  guest_unavailable: {
    status: 503,
    alternateStatuses: [],
    category: 'guest',
    text: {
      en: {
        message: 'Guest chat is temporarily unavailable.',
        client_action: 'Try again later, or sign up to continue.',
      },
      es: {
        message: 'El chat para invitados no está disponible temporalmente.',
        client_action: 'Inténtelo de nuevo más tarde o regístrese para continuar.',
      },
    },
  },
  provider_tool_rate_limit_exceeded: {
    status: 429,
    alternateStatuses: [],
    category: 'limits',
    text: {
      en: {
        message: 'The daily limit of provider tool calls has been reached.',
        client_action: 'Wait until the limit resets at midnight UTC or upgrade your plan.',
      },
      es: {
        message: 'Se ha alcanzado el límite diario de llamadas a herramientas de proveedores.',
        client_action: 'Espere a que el límite se restablezca a medianoche UTC o mejore su plan.',
      },
    },
  },
  log_range_limit_exceeded: {
    status: 402,
    alternateStatuses: [],
    category: 'billing',
    text: {
      en: {
        message: 'The requested log range is larger than your plan allows.',
        client_action: 'Request a shorter date range or upgrade your plan.',
      },
      es: {
        message: 'El rango de registros solicitado supera lo que permite su plan.',
        client_action: 'Solicite un rango de fechas más corto o mejore su plan.',
      },
    },
  },
  experiment_run_result_limit_exceeded: {
    status: 422,
    alternateStatuses: [],
    category: 'experiment',
    text: {
      en: {
        message: 'This experiment run would exceed the allowed number of result cells.',
        client_action: 'Reduce the number of dataset rows or candidates, then start the run again.',
      },
      es: {
        message: 'Esta ejecución del experimento superaría el número permitido de celdas de resultados.',
        client_action: 'Reduzca el número de filas del conjunto de datos o de candidatos e inicie la ejecución de nuevo.',
      },
    },
  },
  experiment_candidate_type_unsupported: {
    status: 422,
    alternateStatuses: [],
    category: 'experiment',
    text: {
      en: {
        message: 'This candidate type is not supported by prompt-only experiments.',
        client_action: 'Use a prompt candidate in this experiment.',
      },
      es: {
        message: 'Este tipo de candidato no es compatible con los experimentos solo de prompts.',
        client_action: 'Use un candidato de tipo prompt en este experimento.',
      },
    },
  },
  experiment_run_unsupported_candidates: {
    status: 422,
    alternateStatuses: [],
    category: 'experiment',
    text: {
      en: {
        message: 'The run includes active candidates that cannot be run.',
        client_action: 'Deactivate or remove the unsupported candidates, then start the run again.',
      },
      es: {
        message: 'La ejecución incluye candidatos activos que no se pueden ejecutar.',
        client_action: 'Desactive o elimine los candidatos no compatibles e inicie la ejecución de nuevo.',
      },
    },
  },
  experiment_dataset_row_limit_exceeded: {
    status: 422,
    alternateStatuses: [],
    category: 'experiment',
    text: {
      en: {
        message: 'A dataset version cannot have more than 10,000 rows.',
        client_action: 'Remove rows or split the data into several datasets.',
      },
      es: {
        message: 'Una versión del conjunto de datos no puede tener más de 10.000 filas.',
        client_action: 'Elimine filas o divida los datos en varios conjuntos de datos.',
      },
    },
  },
  experiment_run_start_failed: {
    status: 503,
    alternateStatuses: [],
    category: 'experiment',
    text: {
      en: {
        message: 'The experiment run could not be started.',
        client_action: 'Wait a moment, then start the run again.',
      },
      es: {
        message: 'No se pudo iniciar la ejecución del experimento.',
        client_action: 'Espere un momento e inicie la ejecución de nuevo.',
      },
    },
  },
  iteration_limit_exceeded: {
    status: 422,
    alternateStatuses: [],
    category: 'runtime',
    text: {
      en: {
        message: 'A workflow loop ran more times than allowed.',
        client_action: 'Reduce the number of loop iterations in the workflow, then retry.',
      },
      es: {
        message: 'Un bucle del flujo de trabajo se ejecutó más veces de las permitidas.',
        client_action: 'Reduzca el número de iteraciones del bucle en el flujo de trabajo y vuelva a intentarlo.',
      },
    },
  },
  internal_server_error: {
    status: 500,
    alternateStatuses: [],
    category: 'runtime',
    text: {
      en: {
        message: 'An unexpected error occurred.',
        client_action: 'Retry the request. If the problem persists, contact support with the request ID.',
      },
      es: {
        message: 'Se produjo un error inesperado.',
        client_action: 'Vuelva a intentar la solicitud. Si el problema continúa, contacte con soporte indicando el ID de la solicitud.',
      },
    },
  },
  too_many_requests: {
    status: 429,
    alternateStatuses: [],
    category: 'limits',
    text: {
      en: {
        message: 'Too many requests. Please slow down.',
        client_action: 'Wait a moment, then retry with fewer requests at a time.',
      },
      es: {
        message: 'Demasiadas solicitudes. Reduzca el ritmo, por favor.',
        client_action: 'Espere un momento y vuelva a intentarlo con menos solicitudes a la vez.',
      },
    },
  },
  concurrency_limit_reached: {
    status: 429,
    alternateStatuses: [],
    category: 'limits',
    text: {
      en: {
        message: 'The limit of concurrent workflow runs for your plan has been reached.',
        client_action: 'Wait for a running workflow to finish, then retry, or upgrade your plan.',
      },
      es: {
        message: 'Se ha alcanzado el límite de ejecuciones simultáneas de flujos de trabajo de su plan.',
        client_action: 'Espere a que termine un flujo de trabajo en curso y vuelva a intentarlo, o mejore su plan.',
      },
    },
  },
  validation_error: {
    status: 422,
    alternateStatuses: [400, 413],
    category: 'validation',
    text: {
      en: {
        message: 'One or more request parameters are invalid.',
        client_action: 'Correct the parameters named in the details, then retry.',
      },
      es: {
        message: 'Uno o varios parámetros de la solicitud no son válidos.',
        client_action: 'Corrija los parámetros indicados en los detalles y vuelva a intentarlo.',
      },
    },
  },
  unsupported_provider: {
    status: 400,
    alternateStatuses: [],
    category: 'validation',
    text: {
      en: {
        message: 'This provider is not supported for this request.',
        client_action: 'Choose a model from a supported provider, then retry.',
      },
      es: {
        message: 'Este proveedor no es compatible con esta solicitud.',
        client_action: 'Elija un modelo de un proveedor compatible y vuelva a intentarlo.',
      },
    },
  },
  database_error: {
    status: 500,
    alternateStatuses: [],
    category: 'runtime',
    text: {
      en: {
        message: 'The operation could not be completed.',
        client_action: 'Retry the request. If the problem persists, contact support.',
      },
      es: {
        message: 'No se pudo completar la operación.',
        client_action: 'Vuelva a intentar la solicitud. Si el problema continúa, contacte con soporte.',
      },
    },
  },
  config_error: {
    status: 500,
    alternateStatuses: [],
    category: 'runtime',
    text: {
      en: {
        message: 'The service is not configured to handle this request.',
        client_action: 'Contact support. Retrying will not help until the configuration is fixed.',
      },
      es: {
        message: 'El servicio no está configurado para atender esta solicitud.',
        client_action: 'Contacte con soporte. Reintentar no servirá hasta que se corrija la configuración.',
      },
    },
  },
  provider_error: {
    status: 502,
    alternateStatuses: [],
    category: 'provider',
    text: {
      en: {
        message: 'The model provider rejected or failed the request.',
        client_action: 'Retry the request, or choose another model if the problem persists.',
      },
      es: {
        message: 'El proveedor del modelo rechazó la solicitud o no pudo procesarla.',
        client_action: 'Vuelva a intentar la solicitud o elija otro modelo si el problema continúa.',
      },
    },
  },
  agent_completion_persistence_failed: {
    status: 503,
    alternateStatuses: [],
    category: 'runtime',
    text: {
      en: {
        message: 'The agent response could not be saved.',
        client_action: 'Wait a moment, then retry the request.',
      },
      es: {
        message: 'No se pudo guardar la respuesta del agente.',
        client_action: 'Espere un momento y vuelva a intentar la solicitud.',
      },
    },
  },
  upstream_request_failed: {
    status: 502,
    // 503 (our decision): the gateway's own upstream, the meter store, is unavailable.
    alternateStatuses: [504, 503],
    category: 'runtime',
    text: {
      en: {
        message: 'An upstream service did not return a successful response.',
        client_action: 'Wait a moment, then retry the request.',
      },
      es: {
        message: 'Un servicio externo no devolvió una respuesta correcta.',
        client_action: 'Espere un momento y vuelva a intentar la solicitud.',
      },
    },
  },
  workflow_enqueue_failed: {
    status: 500,
    alternateStatuses: [],
    category: 'runtime',
    text: {
      en: {
        message: 'The workflow run could not be queued.',
        client_action: 'Retry the request. If the problem persists, contact support.',
      },
      es: {
        message: 'No se pudo poner en cola la ejecución del flujo de trabajo.',
        client_action: 'Vuelva a intentar la solicitud. Si el problema continúa, contacte con soporte.',
      },
    },
  },
  not_found: {
    status: 404,
    alternateStatuses: [],
    category: 'not_found',
    text: {
      en: {
        message: 'The resource was not found for this account.',
        client_action: 'Check the identifier and that it belongs to your account.',
      },
      es: {
        message: 'No se encontró el recurso en esta cuenta.',
        client_action: 'Compruebe el identificador y que pertenezca a su cuenta.',
      },
    },
  },
  resource_not_found: {
    status: 404,
    // decisions: an agent, knowledge base or data set not found answers 422 (the spec's status for those lookups).
    alternateStatuses: [422],
    category: 'not_found',
    text: {
      en: {
        message: 'The requested resource was not found.',
        client_action: 'Check the identifier, then retry.',
      },
      es: {
        message: 'No se encontró el recurso solicitado.',
        client_action: 'Compruebe el identificador y vuelva a intentarlo.',
      },
    },
  },
  invalid_access: {
    status: 401,
    alternateStatuses: [],
    category: 'auth',
    text: {
      en: {
        message: 'The request is not authenticated for this account.',
        client_action: 'Use credentials that belong to this account, then retry.',
      },
      es: {
        message: 'La solicitud no está autenticada para esta cuenta.',
        client_action: 'Use credenciales que pertenezcan a esta cuenta y vuelva a intentarlo.',
      },
    },
  },
  unauthorized: {
    status: 401,
    alternateStatuses: [],
    category: 'auth',
    text: {
      en: {
        message: 'Valid authorization is required.',
        client_action: 'Send a valid Authorization header, then retry.',
      },
      es: {
        message: 'Se requiere una autorización válida.',
        client_action: 'Envíe una cabecera Authorization válida y vuelva a intentarlo.',
      },
    },
  },
  forbidden: {
    status: 403,
    alternateStatuses: [],
    category: 'auth',
    text: {
      en: {
        message: 'You are not allowed to perform this action.',
        client_action: 'Ask a workspace administrator for access.',
      },
      es: {
        message: 'No tiene permiso para realizar esta acción.',
        client_action: 'Solicite acceso a un administrador del espacio de trabajo.',
      },
    },
  },
  invalid_api_key: {
    status: 401,
    alternateStatuses: [],
    category: 'auth',
    text: {
      en: {
        message: 'The API key is invalid.',
        client_action: 'Check that the API key is correct and active, then retry.',
      },
      es: {
        message: 'La clave de API no es válida.',
        client_action: 'Compruebe que la clave de API sea correcta y esté activa y vuelva a intentarlo.',
      },
    },
  },
  invalid_request: {
    status: 400,
    // 415 and 417 (our decision): a body in a content encoding, charset or media type the route does
    // not read; an `Expect` header the gateway cannot meet. 405: a method the MCP endpoint does not
    // serve (the spec's decisions, MCP: GET and DELETE are 405).
    alternateStatuses: [405, 415, 417],
    category: 'validation',
    text: {
      en: {
        message: 'The request is invalid.',
        client_action: 'Correct the request body and fields, then retry.',
      },
      es: {
        message: 'La solicitud no es válida.',
        client_action: 'Corrija el cuerpo y los campos de la solicitud y vuelva a intentarlo.',
      },
    },
  },
  missing_required_field: {
    status: 422,
    alternateStatuses: [],
    category: 'validation',
    text: {
      en: {
        message: 'A required field is missing.',
        client_action: 'Add the missing field, then retry.',
      },
      es: {
        message: 'Falta un campo obligatorio.',
        client_action: 'Añada el campo que falta y vuelva a intentarlo.',
      },
    },
  },
  missing_required_header: {
    status: 400,
    alternateStatuses: [],
    category: 'validation',
    text: {
      en: {
        message: 'A required header is missing.',
        client_action: 'Add the missing header, then retry.',
      },
      es: {
        message: 'Falta una cabecera obligatoria.',
        client_action: 'Añada la cabecera que falta y vuelva a intentarlo.',
      },
    },
  },
  validation_failed: {
    status: 422,
    alternateStatuses: [],
    category: 'validation',
    text: {
      en: {
        message: 'Validation failed.',
        client_action: 'Fix the problems listed in the errors, then retry.',
      },
      es: {
        message: 'La validación ha fallado.',
        client_action: 'Corrija los problemas indicados en los errores y vuelva a intentarlo.',
      },
    },
  },
  payment_failed: {
    status: 422,
    alternateStatuses: [],
    category: 'billing',
    text: {
      en: {
        message: 'The payment could not be completed.',
        client_action: 'Check your payment method, then try again.',
      },
      es: {
        message: 'No se pudo completar el pago.',
        client_action: 'Revise su método de pago e inténtelo de nuevo.',
      },
    },
  },
  credit_pack_pricing_changed: {
    status: 409,
    alternateStatuses: [],
    category: 'billing',
    text: {
      en: {
        message: 'The credit pack price quote is missing or out of date.',
        client_action: 'Refresh the credit pack prices, then confirm the purchase again.',
      },
      es: {
        message: 'La cotización del paquete de créditos falta o está desactualizada.',
        client_action: 'Actualice los precios de los paquetes de créditos y confirme la compra de nuevo.',
      },
    },
  },
  invalid_hosted_llm_credit_amount: {
    status: 422,
    alternateStatuses: [],
    category: 'billing',
    text: {
      en: {
        message: 'The credit amount must be a whole number of dollars from 10 to 999,999.',
        client_action: 'Enter a whole-dollar amount from 10 to 999,999, then retry.',
      },
      es: {
        message: 'El importe de créditos debe ser un número entero de dólares entre 10 y 999.999.',
        client_action: 'Introduzca un importe en dólares enteros entre 10 y 999.999 y vuelva a intentarlo.',
      },
    },
  },
  billing_configuration_missing: {
    status: 422,
    alternateStatuses: [],
    category: 'billing',
    text: {
      en: {
        message: 'Payments are not set up for this plan.',
        client_action: 'Contact support to complete this purchase.',
      },
      es: {
        message: 'Los pagos no están habilitados para este plan.',
        client_action: 'Contacte con soporte para completar esta compra.',
      },
    },
  },
  stripe_customer_creation_failed: {
    status: 422,
    alternateStatuses: [],
    category: 'billing',
    text: {
      en: {
        message: 'Your billing profile could not be created or loaded.',
        client_action: 'Try again later. If the problem persists, contact support.',
      },
      es: {
        message: 'No se pudo crear ni cargar su perfil de facturación.',
        client_action: 'Inténtelo de nuevo más tarde. Si el problema continúa, contacte con soporte.',
      },
    },
  },
  promotion_code_invalid: {
    status: 200,
    alternateStatuses: [],
    category: 'billing',
    text: {
      en: {
        message: 'The discount code is missing, invalid or expired.',
        client_action: 'Check the discount code, or continue without one.',
      },
      es: {
        message: 'El código de descuento falta, no es válido o ha caducado.',
        client_action: 'Revise el código de descuento o continúe sin él.',
      },
    },
  },
  archive_restore_conflict: {
    status: 409,
    alternateStatuses: [],
    category: 'runtime',
    text: {
      en: {
        message: 'An archive restore is already in progress.',
        client_action: 'Wait for the current restore to finish, then try again.',
      },
      es: {
        message: 'Ya hay una restauración de archivo en curso.',
        client_action: 'Espere a que termine la restauración actual e inténtelo de nuevo.',
      },
    },
  },
  completion_resolution_failed: {
    status: 500,
    alternateStatuses: [],
    category: 'runtime',
    text: {
      en: {
        message: 'The completion could not be linked to its dashboard page.',
        client_action: 'Retry the request. If the problem persists, contact support.',
      },
      es: {
        message: 'No se pudo vincular la respuesta con su página del panel.',
        client_action: 'Vuelva a intentar la solicitud. Si el problema continúa, contacte con soporte.',
      },
    },
  },
  integration_connection_failed: {
    status: 502,
    alternateStatuses: [],
    category: 'integration',
    text: {
      en: {
        message: 'The integration connection could not be started or synced.',
        client_action: 'Check the integration settings, then reconnect.',
      },
      es: {
        message: 'No se pudo iniciar ni sincronizar la conexión de la integración.',
        client_action: 'Revise la configuración de la integración y vuelva a conectarla.',
      },
    },
  },
  webhook_signature_invalid: {
    status: 400,
    alternateStatuses: [],
    category: 'webhook',
    text: {
      en: {
        message: 'The webhook signature could not be verified.',
        client_action: 'Sign the payload with the current webhook secret, then resend it.',
      },
      es: {
        message: 'No se pudo verificar la firma del webhook.',
        client_action: 'Firme el contenido con el secreto de webhook vigente y vuelva a enviarlo.',
      },
    },
  },
  webhook_signature_not_configured: {
    status: 500,
    alternateStatuses: [],
    category: 'webhook',
    text: {
      en: {
        message: 'Webhook signature verification is not set up for this endpoint.',
        client_action: 'Contact support. Retrying will not help until it is set up.',
      },
      es: {
        message: 'La verificación de firmas de webhook no está habilitada para este endpoint.',
        client_action: 'Contacte con soporte. Reintentar no servirá hasta que se habilite.',
      },
    },
  },
  webhook_payload_invalid: {
    status: 400,
    alternateStatuses: [],
    category: 'webhook',
    text: {
      en: {
        message: 'The webhook payload could not be parsed.',
        client_action: 'Send a well-formed JSON payload, then retry.',
      },
      es: {
        message: 'No se pudo interpretar el contenido del webhook.',
        client_action: 'Envíe un contenido JSON bien formado y vuelva a intentarlo.',
      },
    },
  },
  mcp_connection_failed: {
    status: 422,
    alternateStatuses: [],
    category: 'integration',
    text: {
      en: {
        message: 'The connection test to the MCP server failed.',
        client_action: 'Check the MCP server URL and credentials, then test again.',
      },
      es: {
        message: 'La prueba de conexión con el servidor MCP ha fallado.',
        client_action: 'Revise la URL y las credenciales del servidor MCP y vuelva a probar.',
      },
    },
  },
  unsupported_resource_type: {
    status: 400,
    alternateStatuses: [],
    category: 'validation',
    text: {
      en: {
        message: 'This resource type is not supported.',
        client_action: 'Use a supported resource type, then retry.',
      },
      es: {
        message: 'Este tipo de recurso no es compatible.',
        client_action: 'Use un tipo de recurso compatible y vuelva a intentarlo.',
      },
    },
  },
  idempotency_key_in_use: {
    status: 409,
    alternateStatuses: [],
    category: 'runtime',
    text: {
      en: {
        message: 'A request with this Idempotency-Key is still running.',
        client_action: 'Wait for the first request to finish, then retry with the same key to get its answer.',
      },
      es: {
        message: 'Una solicitud con esta Idempotency-Key todavía se está ejecutando.',
        client_action: 'Espere a que termine la primera solicitud y vuelva a intentarlo con la misma clave para obtener su respuesta.',
      },
    },
  },
  idempotency_key_reused: {
    status: 422,
    alternateStatuses: [],
    category: 'validation',
    text: {
      en: {
        message: 'This Idempotency-Key was already used with a different request.',
        client_action: 'Use a new Idempotency-Key for a different request.',
      },
      es: {
        message: 'Esta Idempotency-Key ya se usó con una solicitud distinta.',
        client_action: 'Use una Idempotency-Key nueva para una solicitud distinta.',
      },
    },
  },
  run_cancelled: {
    status: 409,
    alternateStatuses: [],
    category: 'runtime',
    text: {
      en: {
        message: 'The run was cancelled before it finished.',
        client_action: 'Start a new run if you still need its result.',
      },
      es: {
        message: 'La ejecución se canceló antes de terminar.',
        client_action: 'Inicie una nueva ejecución si todavía necesita su resultado.',
      },
    },
  },
  mcp_tool_not_approved: {
    status: 409,
    alternateStatuses: [],
    category: 'integration',
    text: {
      en: {
        message: 'The MCP tool changed since its server was approved, or was never approved.',
        client_action:
          'Review the tool list of the MCP server and approve it again (POST /v1/private/mcp_servers/{id}/approve), then retry.',
      },
      es: {
        message: 'La herramienta MCP cambió desde que se aprobó su servidor, o nunca se aprobó.',
        client_action:
          'Revise la lista de herramientas del servidor MCP y apruébela de nuevo (POST /v1/private/mcp_servers/{id}/approve) y vuelva a intentarlo.',
      },
    },
  },
  mcp_tool_failed: {
    status: 502,
    alternateStatuses: [],
    category: 'integration',
    text: {
      en: {
        message: 'The MCP tool call failed.',
        client_action: 'Read the tool error in details, check the MCP server, then retry.',
      },
      es: {
        message: 'La llamada a la herramienta MCP ha fallado.',
        client_action: 'Lea el error de la herramienta en details, revise el servidor MCP y vuelva a intentarlo.',
      },
    },
  },
  release_gate_not_satisfied: {
    status: 409,
    alternateStatuses: [],
    category: 'experiment',
    text: {
      en: {
        message: 'This version cannot be promoted: the release gate asks for a recent experiment run that it passed.',
        client_action:
          'Run an experiment that includes this exact version and meets its thresholds, then promote again, or override with a written reason.',
      },
      es: {
        message:
          'Esta versión no se puede promover: la puerta de publicación exige una ejecución de experimento reciente que haya superado.',
        client_action:
          'Ejecute un experimento que incluya esta versión exacta y cumpla sus umbrales y vuelva a promoverla, o fuerce la promoción con un motivo escrito.',
      },
    },
  },
  release_rollback_unavailable: {
    status: 409,
    alternateStatuses: [],
    category: 'experiment',
    text: {
      en: {
        message: 'There is nothing to roll back: this pointer has no earlier target in its history.',
        client_action: 'Promote the version you want instead, or name another pointer.',
      },
      es: {
        message: 'No hay nada que revertir: este puntero no tiene un destino anterior en su historial.',
        client_action: 'Promueva en su lugar la versión que desee o indique otro puntero.',
      },
    },
  },
} as const satisfies Record<string, ErrorCatalogEntryData>;

export type ErrorCode = keyof typeof ERROR_CATALOG;
