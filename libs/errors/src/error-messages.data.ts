/**
 * The specific messages an error may carry instead of its catalog text, as data: one id
 * per message, each in every supported locale (usted form in Spanish, like the catalog).
 *
 * A service raises `new WaggleException(code, { detail: 'workspace_not_found' })`, or with
 * the id's parameters, `{ detail: 'plan_not_found', params: { key } }`: the compiler checks
 * that the parameters are exactly the template's `%{name}` placeholders. The id and the
 * parameters travel (NATS, BullMQ); the text is rendered where the workspace's language is
 * known (the gateway's error body). Parameters are user data (names, ids, numbers), never
 * secrets.
 *
 * `%{reason}` carries an explanation another component wrote (a URL policy, a provider
 * failure, a validator), which is English today; everything around it is localized.
 */
export const ERROR_MESSAGES = {
  // Resources that are not there.
  workspace_not_found: { en: 'Workspace not found', es: 'Espacio de trabajo no encontrado' },
  api_key_not_found: { en: 'API key not found', es: 'Clave de API no encontrada' },
  plan_not_found: { en: 'Plan not found: %{key}', es: 'Plan no encontrado: %{key}' },
  model_not_found: { en: 'Model not found: %{id}', es: 'Modelo no encontrado: %{id}' },
  agent_not_found: { en: 'Agent not found', es: 'Agente no encontrado' },
  asset_not_found: { en: 'Asset not found', es: 'Recurso no encontrado' },
  knowledge_base_not_found: { en: 'Knowledge base not found', es: 'Base de conocimiento no encontrada' },
  knowledge_base_item_not_found: { en: 'Knowledge base item not found', es: 'Elemento de la base de conocimiento no encontrado' },
  delivery_not_found: { en: 'Delivery not found', es: 'Entrega no encontrada' },
  request_not_found: { en: 'Request not found', es: 'Solicitud no encontrada' },
  prompt_deployment_not_found: { en: 'Prompt deployment not found', es: 'Despliegue de prompt no encontrado' },
  deployment_not_found: { en: 'Deployment not found: %{name}', es: 'Despliegue no encontrado: %{name}' },
  variant_not_found: { en: 'Variant not found', es: 'Variante no encontrada' },
  variant_not_found_named: { en: 'Variant not found: %{name}', es: 'Variante no encontrada: %{name}' },
  variant_version_not_found: { en: 'Variant %{name} has no version %{version}', es: 'La variante %{name} no tiene la versión %{version}' },
  release_label_and_version: {
    en: 'Give a label or a version, not both',
    es: 'Indique una etiqueta o una versión, no ambas',
  },
  release_label_not_found: { en: 'Variant %{name} has no label %{label}', es: 'La variante %{name} no tiene la etiqueta %{label}' },
  release_label_reserved: {
    en: 'The label %{label} is reserved: latest is always the newest version and deployed the deployed one',
    es: 'La etiqueta %{label} está reservada: latest es siempre la versión más reciente y deployed la desplegada',
  },
  release_nothing_to_roll_back: {
    en: 'The pointer %{pointer} of %{name} has no earlier target to roll back to',
    es: 'El puntero %{pointer} de %{name} no tiene un destino anterior al que volver',
  },
  release_override_needs_reason: {
    en: 'An override of the release gate needs a written reason',
    es: 'Forzar la puerta de publicación exige un motivo escrito',
  },
  release_gate_pass_rate: {
    en: 'The best experiment run of version %{version} passed %{pass_rate}, below the required %{min_pass_rate}',
    es: 'La mejor ejecución de experimento de la versión %{version} superó %{pass_rate}, por debajo del %{min_pass_rate} exigido',
  },
  release_gate_no_run: {
    en: 'No completed experiment run has version %{version} as an active candidate',
    es: 'Ninguna ejecución de experimento completada tiene la versión %{version} como candidata activa',
  },
  release_gate_run_too_old: {
    en: 'The latest experiment run of version %{version} finished at %{finished_at}, more than %{days} days ago',
    es: 'La última ejecución de experimento de la versión %{version} terminó el %{finished_at}, hace más de %{days} días',
  },
  split_weights_sum: {
    en: 'The weights of a split must sum to 100 (these sum to %{sum})',
    es: 'Los pesos de un reparto deben sumar 100 (estos suman %{sum})',
  },
  split_target_one_of: {
    en: 'A split target names either a variant or a version',
    es: 'Un destino del reparto indica una variante o una versión, no ambas ni ninguna',
  },
  split_target_repeated: { en: 'The split names this target twice', es: 'El reparto indica este destino dos veces' },
  split_variant_unknown: {
    en: 'The deployment has no variant %{name} to split to',
    es: 'El despliegue no tiene ninguna variante %{name} a la que repartir',
  },
  split_version_unknown: {
    en: 'The variant has no version %{version} to split to',
    es: 'La variante no tiene ninguna versión %{version} a la que repartir',
  },
  prompt_deployment_or_variant_gone: {
    en: 'The prompt deployment or variant no longer exists',
    es: 'El despliegue o la variante del prompt ya no existe',
  },
  workflow_version_not_found: { en: 'Workflow version not found: %{id}', es: 'Versión de flujo de trabajo no encontrada: %{id}' },
  workflow_run_not_found: { en: 'Prompt workflow run not found', es: 'Ejecución de flujo de trabajo no encontrada' },
  dead_letter_not_found: {
    en: 'No %{source} dead letter %{id} (never dead-lettered, or replayed already)',
    es: 'No hay ninguna carta muerta %{id} en %{source} (nunca llegó a serlo, o ya se reprocesó)',
  },

  // The OpenAI-compatible surface (decisions: "Beyond the contract: OpenAI-compatible API").
  openai_model_not_found: {
    en: 'The model %{model} does not exist or you do not have access to it',
    es: 'El modelo %{model} no existe o no tiene acceso a él',
  },
  openai_agent_name_ambiguous: {
    en: 'More than one agent is named %{name}: use agent/<agent id>',
    es: 'Hay más de un agente llamado %{name}: use agent/<id del agente>',
  },
  openai_endpoint_unsupported: {
    en: '%{method} %{path} is not supported by this API',
    es: '%{method} %{path} no está disponible en esta API',
  },
  openai_parameter_unsupported: { en: '%{param} is not supported', es: '%{param} no está disponible' },
  openai_input_missing: {
    en: 'The template variable %{name} has no value: give it in inputs (or metadata)',
    es: 'La variable de plantilla %{name} no tiene valor: indíquela en inputs (o metadata)',
  },
  openai_response_format_conflict: {
    en: 'This deployment variant has its own response_format; a different one cannot be given',
    es: 'Esta variante del despliegue tiene su propio response_format; no se puede indicar otro',
  },
  openai_agent_tools: {
    en: 'An agent runs its own tools: tools cannot be given',
    es: 'Un agente ejecuta sus propias herramientas: no se pueden indicar tools',
  },
  openai_tool_call_unknown: {
    en: 'tool_call_id %{id} answers no tool call of an earlier assistant message',
    es: 'tool_call_id %{id} no responde a ninguna llamada de herramienta de un mensaje anterior del asistente',
  },
  openai_message_invalid: { en: '%{reason}', es: 'Entrada no válida: %{reason}' },
  openai_previous_response: {
    en: 'previous_response_id is not supported: responses are not stored (store: false)',
    es: 'previous_response_id no está disponible: las respuestas no se guardan (store: false)',
  },
  openai_user_message_missing: {
    en: 'An agent needs a last message from the user',
    es: 'Un agente necesita un último mensaje del usuario',
  },

  // Waggle as an MCP server (the spec's decisions, MCP).
  mcp_tool_name_taken: {
    en: 'The MCP tool name %{name} is already taken in this workspace: give this one another publish.tool_name',
    es: 'El nombre de herramienta MCP %{name} ya está en uso en este espacio de trabajo: indique otro publish.tool_name',
  },
  mcp_origin_not_allowed: {
    en: 'The origin %{origin} may not call this MCP server',
    es: 'El origen %{origin} no puede llamar a este servidor MCP',
  },
  mcp_answer_not_structured: {
    en: 'The answer is not the JSON object the tool’s output schema describes',
    es: 'La respuesta no es el objeto JSON que describe el esquema de salida de la herramienta',
  },
  mcp_method_not_allowed: {
    en: 'The MCP server takes each message as a POST; %{method} is not served',
    es: 'El servidor MCP recibe cada mensaje con POST; %{method} no se sirve',
  },

  // A request field that failed its class-validator rule (libs/platform/src/validation/constraint-messages.ts):
  // a `details[].messages` entry. The English is class-validator's own text, word for word.
  validation_each_value_in: { en: 'each value in %{property}', es: 'cada valor de %{property}' },
  validation_is_string: { en: '%{property} must be a string', es: '%{property} debe ser una cadena de texto' },
  validation_is_int: { en: '%{property} must be an integer number', es: '%{property} debe ser un número entero' },
  validation_is_number: {
    en: '%{property} must be a number conforming to the specified constraints',
    es: '%{property} debe ser un número conforme a las restricciones indicadas',
  },
  validation_is_boolean: { en: '%{property} must be a boolean value', es: '%{property} debe ser un valor booleano' },
  validation_is_object: { en: '%{property} must be an object', es: '%{property} debe ser un objeto' },
  validation_is_array: { en: '%{property} must be an array', es: '%{property} debe ser una lista' },
  validation_is_uuid: { en: '%{property} must be a UUID', es: '%{property} debe ser un UUID' },
  validation_is_iso8601: {
    en: '%{property} must be a valid ISO 8601 date string',
    es: '%{property} debe ser una fecha ISO 8601 válida',
  },
  validation_is_defined: { en: '%{property} should not be null or undefined', es: '%{property} es obligatorio y no puede ser nulo' },
  validation_is_not_empty: { en: '%{property} should not be empty', es: '%{property} no puede estar vacío' },
  validation_min: { en: '%{property} must not be less than %{min}', es: '%{property} no puede ser menor que %{min}' },
  validation_max: { en: '%{property} must not be greater than %{max}', es: '%{property} no puede ser mayor que %{max}' },
  validation_min_length: {
    en: '%{property} must be longer than or equal to %{min} characters',
    es: '%{property} debe tener al menos %{min} caracteres',
  },
  validation_max_length: {
    en: '%{property} must be shorter than or equal to %{max} characters',
    es: '%{property} debe tener como máximo %{max} caracteres',
  },
  validation_length_between: {
    en: '%{property} must be longer than or equal to %{min} and shorter than or equal to %{max} characters',
    es: '%{property} debe tener entre %{min} y %{max} caracteres',
  },
  validation_is_in: {
    en: '%{property} must be one of the following values: %{values}',
    es: '%{property} debe ser uno de estos valores: %{values}',
  },
  validation_matches: {
    en: '%{property} must match %{pattern} regular expression',
    es: '%{property} debe coincidir con la expresión regular %{pattern}',
  },
  validation_array_min_size: {
    en: '%{property} must contain at least %{min} elements',
    es: '%{property} debe contener al menos %{min} elementos',
  },
  validation_array_unique: {
    en: "All %{property}'s elements must be unique",
    es: 'Todos los elementos de %{property} deben ser únicos',
  },
  validation_array_max_size: {
    en: '%{property} must contain no more than %{max} elements',
    es: '%{property} debe contener como máximo %{max} elementos',
  },
  validation_nested: {
    en: 'nested property %{property} must be either object or array',
    es: 'la propiedad anidada %{property} debe ser un objeto o una lista',
  },
  validation_nested_each: {
    en: 'each value in nested property %{property} must be either object or array',
    es: 'cada valor de la propiedad anidada %{property} debe ser un objeto o una lista',
  },
  validation_unknown_property: { en: 'property %{property} should not exist', es: 'la propiedad %{property} no está permitida' },
  validation_unknown_value: {
    en: 'an unknown value was passed to the validate function',
    es: 'se recibió un valor que no se puede validar',
  },
  validation_empty_payload: { en: 'the payload must be an empty object', es: 'el contenido debe ser un objeto vacío' },
  validation_attachment_list: {
    en: '%{property} must be an array of at most %{max} URL strings or objects with a file_url string',
    es: '%{property} debe ser una lista de como máximo %{max} URL (cadenas) u objetos con una cadena file_url',
  },
  /** A rule without a message of its own here (a new decorator): still a sentence in each language. */
  validation_invalid: { en: '%{property} is not valid', es: '%{property} no es válido' },
  // Why a run's `metadata` was refused (libs/contracts/src/flat-metadata.ts).
  metadata_not_object: { en: 'metadata must be an object', es: 'metadata debe ser un objeto' },
  metadata_too_many_keys: { en: 'metadata may have at most %{max} keys', es: 'metadata admite como máximo %{max} claves' },
  metadata_key_empty: { en: 'metadata keys must be non-empty strings', es: 'las claves de metadata deben ser cadenas no vacías' },
  metadata_key_too_long: {
    en: 'metadata keys may have at most %{max} characters',
    es: 'las claves de metadata admiten como máximo %{max} caracteres',
  },
  metadata_value_nested: {
    en: 'metadata.%{key} must be a string, number, boolean or null (nested objects and arrays are not accepted)',
    es: 'metadata.%{key} debe ser una cadena, un número, un booleano o nulo (no se aceptan objetos ni listas anidados)',
  },
  metadata_value_not_finite: { en: 'metadata.%{key} must be a finite number', es: 'metadata.%{key} debe ser un número finito' },
  metadata_value_type: {
    en: 'metadata.%{key} must be a string, number, boolean or null',
    es: 'metadata.%{key} debe ser una cadena, un número, un booleano o nulo',
  },
  metadata_value_too_long: {
    en: 'metadata.%{key} may have at most %{max} characters',
    es: 'metadata.%{key} admite como máximo %{max} caracteres',
  },
  // Why a response format's schema was refused (libs/contracts/src/response-format.ts); `%{reason}` is Ajv's, in English.
  response_schema_not_object: { en: 'schema must be a JSON Schema object', es: 'schema debe ser un objeto JSON Schema' },
  response_schema_too_large: {
    en: 'schema may be at most %{kib} KiB of JSON',
    es: 'schema admite como máximo %{kib} KiB de JSON',
  },
  response_schema_invalid: {
    en: 'schema is not a valid JSON Schema (draft 2020-12): %{reason}',
    es: 'schema no es un JSON Schema válido (borrador 2020-12): %{reason}',
  },

  // Requests the gateway cannot read.
  request_headers_too_large: { en: 'Request headers are too large', es: 'Las cabeceras de la solicitud son demasiado grandes' },
  request_unparsable: { en: 'The request could not be parsed', es: 'No se pudo interpretar la solicitud' },
  request_body_too_large: { en: 'Request body is too large', es: 'El cuerpo de la solicitud es demasiado grande' },
  request_body_not_json: { en: 'Request body is not valid JSON', es: 'El cuerpo de la solicitud no es JSON válido' },
  request_body_unreadable: {
    en: 'The request body could not be read: it is cut short, longer or shorter than its Content-Length, or not in its Content-Encoding',
    es: 'No se pudo leer el cuerpo de la solicitud: está incompleto, no coincide con su Content-Length o no está en su Content-Encoding',
  },
  request_encoding_unsupported: {
    en: 'The Content-Encoding %{encoding} is not supported here; send identity, gzip, deflate or br',
    es: 'El Content-Encoding %{encoding} no se admite aquí; envíe identity, gzip, deflate o br',
  },
  request_charset_unsupported: {
    en: 'The charset %{charset} is not supported; send UTF-8',
    es: 'El juego de caracteres %{charset} no se admite; envíe UTF-8',
  },
  request_query_malformed: {
    en: 'The query string is not validly percent-encoded',
    es: 'La cadena de consulta no está codificada correctamente con porcentajes',
  },
  request_host_missing: { en: 'An HTTP/1.1 request needs a Host header', es: 'Una solicitud HTTP/1.1 necesita la cabecera Host' },
  request_expectation_unsupported: {
    en: 'The Expect header asks for what this server does not do; send it without, or with 100-continue',
    es: 'La cabecera Expect pide algo que este servidor no hace; envíela sin ella o con 100-continue',
  },
  console_not_built: {
    en: 'The web console is not built into this gateway; build it with npm run build',
    es: 'La consola web no está compilada en esta pasarela; compile el proyecto antes de arrancarla',
  },
  console_file_not_found: {
    en: 'The web console has no such file',
    es: 'La consola web no tiene ese archivo',
  },
  request_method_unsupported: {
    en: 'The method %{method} is not served here',
    es: 'El método %{method} no se sirve aquí',
  },
  upload_encoding_unsupported: {
    en: 'An upload is read as it is sent: send it without a Content-Encoding',
    es: 'Una subida se lee tal como se envía: envíela sin Content-Encoding',
  },
  request_input_too_deep: {
    en: 'Request input is nested more than %{depth} levels deep',
    es: 'La entrada de la solicitud tiene más de %{depth} niveles de anidamiento',
  },
  upload_too_large: {
    en: 'The file is larger than the %{mebibytes} MiB an asset may have',
    es: 'El archivo supera los %{mebibytes} MiB que puede ocupar un recurso',
  },
  upload_one_file: {
    en: 'Send exactly one file, in the multipart field "%{field}"',
    es: 'Envíe exactamente un archivo, en el campo multipart "%{field}"',
  },
  upload_form_unacceptable: { en: 'The multipart form is not acceptable', es: 'El formulario multipart no es aceptable' },
  upload_body_malformed: { en: 'The multipart body is malformed', es: 'El cuerpo multipart está mal formado' },
  missing_required_fields: { en: 'Missing required fields: %{fields}', es: 'Faltan campos obligatorios: %{fields}' },
  missing_required_inputs: { en: 'Missing required inputs: %{fields}', es: 'Faltan entradas obligatorias: %{fields}' },
  invalid_inputs: { en: 'Invalid inputs: %{fields}', es: 'Entradas no válidas: %{fields}' },
  invalid_search_type: {
    en: 'Invalid search type: %{value}; use one of %{allowed}',
    es: 'Tipo de búsqueda no válido: %{value}; use uno de estos: %{allowed}',
  },
  url_refused: { en: '%{reason}', es: 'URL rechazada: %{reason}' },
  // A URL policy's reasons (libs/webhooks), nested as url_refused's `%{reason}`.
  url_too_long: { en: '%{field} must be at most %{max} characters', es: '%{field} debe tener como máximo %{max} caracteres' },
  url_not_absolute: { en: '%{field} must be an absolute URL', es: '%{field} debe ser una URL absoluta' },
  url_must_use_https: { en: '%{field} must use https', es: '%{field} debe usar https' },
  url_has_credentials: { en: '%{field} must not contain credentials', es: '%{field} no debe contener credenciales' },
  url_no_host: { en: '%{field} must name a host', es: '%{field} debe indicar un host' },
  url_non_public: { en: '%{field} points to %{range} address', es: '%{field} apunta a una dirección %{range}' },
  url_non_public_address: {
    en: '%{field} points to %{range} address (%{address})',
    es: '%{field} apunta a una dirección %{range} (%{address})',
  },
  host_non_public_address: {
    en: '%{host} resolves to %{range} address (%{address})',
    es: '%{host} se resuelve en una dirección %{range} (%{address})',
  },
  host_unresolved: { en: '%{host} did not resolve to any address', es: '%{host} no se resolvió en ninguna dirección' },
  url_word_callback: { en: 'callback_url', es: 'el campo callback_url' },
  url_word_attachment: { en: 'attachment URL', es: 'la URL del adjunto' },
  url_word_page: { en: 'page URL', es: 'la URL de la página' },
  url_word_plain: { en: 'url', es: 'la url' },
  host_word_callback: { en: 'callback host', es: 'el host del callback' },
  host_word_attachment: { en: 'attachment host', es: 'el host del adjunto' },
  host_word_page: { en: 'page host', es: 'el host de la página' },
  host_word_plain: { en: 'host', es: 'el host' },
  address_range_a: { en: 'a %{label}', es: '%{label}' },
  address_range_an: { en: 'an %{label}', es: '%{label}' },
  address_range_ipv4_mapped: { en: 'an IPv4-mapped %{label}', es: '%{label} mapeada en IPv4' },
  range_loopback: { en: 'loopback', es: 'de bucle local' },
  range_private: { en: 'private', es: 'privada' },
  range_link_local: { en: 'link-local', es: 'de enlace local' },
  range_unique_local: { en: 'unique-local', es: 'local única' },
  range_unspecified: { en: 'unspecified', es: 'no especificada' },
  range_carrier_grade_nat: { en: 'carrier-grade NAT', es: 'de NAT de operador' },
  range_multicast: { en: 'multicast', es: 'de multidifusión' },
  range_broadcast: { en: 'broadcast', es: 'de difusión' },
  range_reserved: { en: 'reserved', es: 'reservada' },
  range_invalid: { en: 'invalid', es: 'no válida' },

  // Webhooks and metering.
  webhook_secret_required: {
    en: 'A valid webhook secret is required (X-Service-Webhook-Secret header or ?secret=)',
    es: 'Se requiere un secreto de webhook válido (cabecera X-Service-Webhook-Secret o ?secret=)',
  },
  webhooks_unavailable: {
    en: 'Webhook triggers are temporarily unavailable. Retry shortly.',
    es: 'Los disparadores de webhook no están disponibles temporalmente. Vuelva a intentarlo en breve.',
  },
  run_not_accepted: {
    en: 'The run could not be accepted. Retry shortly.',
    es: 'No se pudo aceptar la ejecución. Vuelva a intentarlo en breve.',
  },
  overloaded: {
    en: 'The service is overloaded and did not take the request. Retry shortly.',
    es: 'El servicio está sobrecargado y no aceptó la solicitud. Vuelva a intentarlo en breve.',
  },
  metering_unavailable: {
    en: 'Request metering is temporarily unavailable. Retry shortly.',
    es: 'La medición de solicitudes no está disponible temporalmente. Vuelva a intentarlo en breve.',
  },
  // Usage governance: rate limits and budgets (details name the scope, never a key).
  rate_limit_requests_api_key: {
    en: 'This API key may send at most %{limit} requests per minute',
    es: 'Esta clave de API admite como máximo %{limit} solicitudes por minuto',
  },
  rate_limit_requests_user: {
    en: 'This user may send at most %{limit} requests per minute',
    es: 'Este usuario admite como máximo %{limit} solicitudes por minuto',
  },
  rate_limit_tokens_api_key: {
    en: 'This API key may use at most %{limit} tokens per minute',
    es: 'Esta clave de API admite como máximo %{limit} tokens por minuto',
  },
  rate_limit_tokens_user: {
    en: 'This user may use at most %{limit} tokens per minute',
    es: 'Este usuario admite como máximo %{limit} tokens por minuto',
  },
  budget_reached_workspace: {
    en: "The workspace's spending budget is reached",
    es: 'Se alcanzó el presupuesto de gasto del espacio de trabajo',
  },
  budget_reached_api_key: {
    en: "This API key's spending budget is reached",
    es: 'Se alcanzó el presupuesto de gasto de esta clave de API',
  },
  budget_reached_user: {
    en: "This user's spending budget is reached",
    es: 'Se alcanzó el presupuesto de gasto de este usuario',
  },
  idempotency_unavailable: {
    en: 'Idempotency keys cannot be checked right now. Retry shortly with the same key.',
    es: 'Las claves de idempotencia no se pueden comprobar ahora. Vuelva a intentarlo en breve con la misma clave.',
  },
  idempotency_key_invalid: {
    en: 'The Idempotency-Key header must be 1 to 255 visible ASCII characters',
    es: 'El encabezado Idempotency-Key debe tener de 1 a 255 caracteres ASCII visibles',
  },
  redelivery_not_queued: { en: 'The redelivery could not be queued', es: 'No se pudo poner en cola la nueva entrega' },
  ledger_not_published: {
    en: 'The ledger record of %{request_id} could not be published yet',
    es: 'El registro de %{request_id} todavía no se pudo publicar',
  },
  file_staging_unavailable: {
    en: 'File staging is unavailable. Retry shortly.',
    es: 'El almacenamiento temporal de archivos no está disponible. Vuelva a intentarlo en breve.',
  },
  dead_letters_unavailable: {
    en: 'The dead letters cannot be read or replayed while a dependency is unavailable; try again',
    es: 'Las cartas muertas no se pueden leer ni reprocesar mientras una dependencia no está disponible; vuelva a intentarlo',
  },
  dead_letters_elsewhere: {
    en: '%{source} dead letters are kept by the %{owner} service, not %{here}',
    es: 'Las cartas muertas de %{source} las guarda el servicio %{owner}, no %{here}',
  },
  claim_gone: {
    en: 'A message too large for NATS could not be read back: its stored payload is gone.',
    es: 'No se pudo volver a leer un mensaje demasiado grande para NATS: su contenido almacenado ya no existe.',
  },
  stream_too_long: {
    en: 'The stream exceeded its maximum duration',
    es: 'La transmisión superó su duración máxima',
  },

  // Background runs and resumable streams (decisions D40).
  run_events_not_kept: {
    en: 'No events of this request are kept: only a background stream keeps them, until 1 hour after it ends',
    es: 'No se conservan eventos de esta solicitud: solo una transmisión en segundo plano los conserva, hasta 1 hora después de terminar',
  },
  event_id_invalid: {
    en: '%{field} must be the id of an event: a whole number from 0',
    es: '%{field} debe ser el id de un evento: un número entero desde 0',
  },
  callback_needs_background: {
    en: 'async.callback_url is only used with background: true and no streaming',
    es: 'async.callback_url solo se usa con background: true y sin streaming',
  },

  // Catalog and models.
  model_catalog_invalid: { en: 'The model catalog file is invalid', es: 'El archivo del catálogo de modelos no es válido' },
  not_a_chat_model: { en: '%{model} is not a chat model', es: '%{model} no es un modelo de chat' },
  llm_model_not_in_catalog: {
    en: 'Invalid LLM model: %{model} is not in the model catalog',
    es: 'Modelo LLM no válido: %{model} no está en el catálogo de modelos',
  },
  llm_model_wrong_type: {
    en: 'Invalid LLM model: %{model} is a %{model_type} model, and an agent needs an llm model',
    es: 'Modelo LLM no válido: %{model} es un modelo de tipo %{model_type}, y un agente necesita un modelo llm',
  },
  llm_model_type_mismatch: {
    en: 'Invalid LLM model: %{model} has model_type %{model_type}, not %{declared}',
    es: 'Modelo LLM no válido: el model_type de %{model} es %{model_type}, no %{declared}',
  },
  embedding_model_not_in_catalog: {
    en: 'Invalid embedding model: %{model} is not in the model catalog',
    es: 'Modelo de embeddings no válido: %{model} no está en el catálogo de modelos',
  },
  embedding_model_wrong_type: {
    en: 'Invalid embedding model: %{model} is a %{model_type} model, not an embedding model',
    es: 'Modelo de embeddings no válido: %{model} es un modelo de tipo %{model_type}, no de embeddings',
  },
  embedding_model_unavailable: {
    en: 'Invalid embedding model: %{model} is no longer available',
    es: 'Modelo de embeddings no válido: %{model} ya no está disponible',
  },
  fallback_not_in_catalog: {
    en: 'Invalid fallback: %{model} is not in the model catalog',
    es: 'Modelo alternativo no válido: %{model} no está en el catálogo de modelos',
  },
  fallback_not_usable: {
    en: 'Invalid fallback: %{model} is deprecated or not a chat model',
    es: 'Modelo alternativo no válido: %{model} está obsoleto o no es un modelo de chat',
  },
  fallback_repeated: {
    en: 'Invalid fallback: %{model} is already the model or an earlier fallback',
    es: 'Modelo alternativo no válido: %{model} ya es el modelo o un alternativo anterior',
  },
  fallback_lacks_capability: {
    en: 'Invalid fallback: %{model} cannot %{capability}, which this run needs',
    es: 'Modelo alternativo no válido: %{model} no puede %{capability}, y esta ejecución lo necesita',
  },
  capability_vision: { en: 'see images', es: 'ver imágenes' },
  capability_tools: { en: 'call tools', es: 'llamar herramientas' },
  capability_json_schema: { en: 'answer to a JSON schema natively', es: 'responder de forma nativa a un esquema JSON' },
  // Structured output (libs/providers), as provider_request_failed's `%{reason}`.
  provider_reason_schema_mismatch: {
    en: 'the answer did not match the response format after a repair attempt (%{count} violations)',
    es: 'la respuesta no cumplió el formato de respuesta tras un intento de reparación (%{count} infracciones)',
  },
  not_an_embedding_model: { en: 'Model %{model} is not an embedding model', es: 'El modelo %{model} no es un modelo de embeddings' },

  // Knowledge bases.
  asset_or_url: { en: 'Give either asset_id or url, not both', es: 'Indique asset_id o url, no ambos' },
  url_not_https: { en: 'The url must be an https:// URL', es: 'La url debe ser una URL https://' },
  embedding_vector_count: {
    en: 'Embedding model %{model} answered %{count} vectors for %{expected} texts',
    es: 'El modelo de embeddings %{model} devolvió %{count} vectores para %{expected} textos',
  },
  embedding_vector_dimensions: {
    en: 'Embedding model %{model} answered vectors of %{dimensions} and %{expected} dimensions',
    es: 'El modelo de embeddings %{model} devolvió vectores de %{dimensions} y %{expected} dimensiones',
  },
  embedding_vector_not_finite: {
    en: 'Embedding model %{model} answered a vector with a non-finite value',
    es: 'El modelo de embeddings %{model} devolvió un vector con un valor no finito',
  },
  embedding_dimensions_changed: {
    en: 'Embedding model %{model} answered %{dimensions} dimensions where the knowledge base holds %{expected}',
    es: 'El modelo de embeddings %{model} devolvió %{dimensions} dimensiones donde la base de conocimiento tiene %{expected}',
  },
  embedding_count: {
    en: '%{provider} answered %{count} embeddings for %{expected} texts',
    es: '%{provider} devolvió %{count} embeddings para %{expected} textos',
  },

  // Assets.
  staged_upload_missing: { en: 'The staged upload was not found', es: 'No se encontró la subida temporal' },
  staged_upload_size: {
    en: 'The staged upload does not have the declared size',
    es: 'La subida temporal no tiene el tamaño declarado',
  },

  // Usage governance administration (the spec's decisions on usage governance).
  budget_not_found: { en: 'Budget not found', es: 'Presupuesto no encontrado' },
  rate_limit_not_found: { en: 'Rate limit not found', es: 'Límite de frecuencia no encontrado' },
  budget_limit: {
    en: 'A workspace can have at most %{max} budgets',
    es: 'Un espacio de trabajo puede tener como máximo %{max} presupuestos',
  },
  rate_limit_limit: {
    en: 'A workspace can have at most %{max} rate limits',
    es: 'Un espacio de trabajo puede tener como máximo %{max} límites de frecuencia',
  },
  budget_exists: {
    en: 'A budget for this scope and period already exists: %{id}',
    es: 'Ya existe un presupuesto para este ámbito y periodo: %{id}',
  },
  rate_limit_exists: {
    en: 'A rate limit for this scope already exists: %{id}',
    es: 'Ya existe un límite de frecuencia para este ámbito: %{id}',
  },
  scope_api_key_unknown: {
    en: 'scope_id is not an active API key of this workspace',
    es: 'scope_id no es una clave de API activa de este espacio de trabajo',
  },
  rate_limit_needs_a_rate: {
    en: 'A rate limit needs requests_per_minute, tokens_per_minute or both',
    es: 'Un límite de frecuencia necesita requests_per_minute, tokens_per_minute o ambos',
  },
  credit_amount_invalid: {
    en: 'A top-up must be positive and an adjustment not zero',
    es: 'Una recarga debe ser positiva y un ajuste distinto de cero',
  },
  scope_id_workspace: { en: 'scope_id must be absent for the workspace scope', es: 'scope_id debe omitirse en el ámbito workspace' },
  scope_id_api_key: { en: "scope_id must be the API key's id (a UUID)", es: 'scope_id debe ser el id de la clave de API (un UUID)' },
  scope_id_user: {
    en: 'scope_id must be the user label (1 to %{max} characters)',
    es: 'scope_id debe ser la etiqueta del usuario (de 1 a %{max} caracteres)',
  },
  spend_date_invalid: { en: '%{field} is not a calendar date: %{value}', es: '%{field} no es una fecha del calendario: %{value}' },
  spend_range_invalid: {
    en: 'from must not be after to, and the range at most %{max} days',
    es: 'La fecha inicial no debe ser posterior a la final, y el intervalo debe ser de %{max} días como máximo',
  },
  usage_series_range_invalid: {
    en: 'from must be before to, and the range at most %{max} buckets of a %{bucket}',
    es: 'La fecha inicial debe ser anterior a la final, y el intervalo de %{max} tramos de tipo %{bucket} como máximo',
  },
  // Workspace MCP servers (the spec's decisions, MCP).
  mcp_server_not_found: { en: 'MCP server not found', es: 'Servidor MCP no encontrado' },
  mcp_server_limit: {
    en: 'A workspace can have at most %{max} MCP servers',
    es: 'Un espacio de trabajo puede tener como máximo %{max} servidores MCP',
  },
  mcp_server_exists: { en: 'An MCP server with id %{id} already exists', es: 'Ya existe un servidor MCP con el id %{id}' },
  mcp_server_id_fixed: { en: "An MCP server's id cannot be changed", es: 'El id de un servidor MCP no se puede cambiar' },
  mcp_server_masked_header: {
    en: 'header %{name} is masked but has no stored value to keep',
    es: 'la cabecera %{name} está enmascarada pero no tiene un valor guardado que conservar',
  },
  mcp_connection_stage: {
    en: 'The connection test to the MCP server failed (%{stage}): %{reason}',
    es: 'La prueba de conexión con el servidor MCP ha fallado (%{stage}): %{reason}',
  },
  mcp_headers_not_object: {
    en: 'headers must be an object of header names to string values',
    es: 'headers debe ser un objeto de nombres de cabecera con valores de texto',
  },
  mcp_headers_too_many: { en: 'headers may hold at most %{max} headers', es: 'headers admite como máximo %{max} cabeceras' },
  mcp_header_name_refused: { en: 'header %{name} %{reason}', es: 'la cabecera %{name} %{reason}' },
  mcp_header_name_repeated: { en: 'header %{name} is given twice', es: 'la cabecera %{name} aparece dos veces' },
  mcp_header_value_not_string: { en: 'the value of header %{name} must be a string', es: 'el valor de la cabecera %{name} debe ser texto' },
  mcp_header_value_refused: { en: 'the value of header %{name} %{reason}', es: 'el valor de la cabecera %{name} %{reason}' },
  // Why a header is refused, nested as the `%{reason}` above.
  mcp_header_reason_not_a_name: { en: 'is not a valid header name', es: 'no es un nombre de cabecera válido' },
  mcp_header_reason_host: { en: 'is set from the URL', es: 'se toma de la URL' },
  mcp_header_reason_mcp: { en: 'is reserved for the MCP transport', es: 'está reservada al transporte MCP' },
  mcp_header_reason_hop_by_hop: { en: 'is a hop-by-hop header', es: 'es una cabecera de salto a salto' },
  mcp_header_reason_content_length: { en: 'is set by the connection', es: 'la fija la conexión' },
  mcp_header_reason_value_too_long: { en: 'is longer than %{max} bytes', es: 'supera los %{max} bytes' },
  mcp_header_reason_control_character: { en: 'contains a control character', es: 'contiene un carácter de control' },
  mcp_header_reason_not_latin1: { en: 'contains a character outside Latin-1', es: 'contiene un carácter fuera de Latin-1' },

  // Agents.
  invalid_attachment: { en: 'Invalid attachment: %{reason}', es: 'Adjunto no válido: %{reason}' },
  invalid_attachment_field: { en: 'Invalid attachment (%{field}): %{reason}', es: 'Adjunto no válido (%{field}): %{reason}' },
  // Why an attachment was refused (libs/documents), nested as invalid_attachment_field's `%{reason}`.
  attachment_url_empty: { en: 'attachment URL must be a non-empty string', es: 'la URL del adjunto debe ser un texto no vacío' },
  attachment_url_too_long: {
    en: 'attachment URL must be at most %{max} characters',
    es: 'la URL del adjunto debe tener como máximo %{max} caracteres',
  },
  attachment_url_not_absolute: {
    en: 'attachment URL must be an absolute https:// URL',
    es: 'la URL del adjunto debe ser una URL https:// absoluta',
  },
  attachment_url_not_https: {
    en: 'only https:// attachment URLs are accepted (got %{protocol})',
    es: 'solo se aceptan URL de adjunto https:// (se recibió %{protocol})',
  },
  attachment_url_credentials: {
    en: 'attachment URL must not contain credentials',
    es: 'la URL del adjunto no debe contener credenciales',
  },
  attachment_url_no_host: { en: 'attachment URL must name a host', es: 'la URL del adjunto debe indicar un host' },
  attachment_type_unsupported: {
    en: 'unsupported attachment type ".%{extension}": documents may be %{documents} and images %{images}',
    es: 'tipo de adjunto no admitido ".%{extension}": los documentos pueden ser %{documents} y las imágenes %{images}',
  },
  attachments_not_array: { en: '%{field} must be an array', es: '%{field} debe ser una lista' },
  attachments_too_many: {
    en: 'at most %{max} attachments per message (attachments and image_urls together), got %{count}',
    es: 'como máximo %{max} adjuntos por mensaje (attachments e image_urls juntos); se recibieron %{count}',
  },
  attachment_not_url: {
    en: 'each attachment must be a URL string or an object with a file_url string',
    es: 'cada adjunto debe ser una URL en texto o un objeto con un texto file_url',
  },
  image_url_not_string: { en: 'each image URL must be a string', es: 'cada URL de imagen debe ser un texto' },
  image_urls_not_images: { en: 'image_urls must name images (%{extensions})', es: 'image_urls debe nombrar imágenes (%{extensions})' },
  model_cannot_read_documents: {
    en: 'Invalid attachment: %{model} cannot call tools, so it cannot read attached documents',
    es: 'Adjunto no válido: %{model} no puede llamar a herramientas, así que no puede leer los documentos adjuntos',
  },
  provider_stream_unfinished: {
    en: 'The provider stream ended without finishing',
    es: 'La transmisión del proveedor terminó sin completarse',
  },

  // Prompts and workflows.
  deployment_defined_twice: { en: 'Deployment defined twice: %{names}', es: 'Despliegue definido dos veces: %{names}' },
  variant_defined_twice: {
    en: 'Variant defined twice in %{deployment}: %{names}',
    es: 'Variante definida dos veces en %{deployment}: %{names}',
  },
  invalid_prompt_template: { en: 'A prompt message is not a valid template', es: 'Un mensaje del prompt no es una plantilla válida' },
  prompt_inputs_unrenderable: {
    en: 'The prompt could not be rendered with these inputs',
    es: 'No se pudo generar el prompt con estas entradas',
  },
  invalid_workflow_definitions: {
    en: 'The workflow definitions are invalid: %{field}: %{reason}',
    es: 'Las definiciones del flujo de trabajo no son válidas: %{field}: %{reason}',
  },
  loop_over_not_list: {
    en: 'Loop %{step}: over must be a list, not %{type}',
    es: 'Bucle %{step}: over debe ser una lista, no %{type}',
  },
  loop_too_many_items: {
    en: 'Loop %{step} has %{count} items; max_iterations is %{max}',
    es: 'El bucle %{step} tiene %{count} elementos; max_iterations es %{max}',
  },
  provider_tool_calls_used_up: {
    en: "provider_tool_rate_limit_exceeded: the workspace's %{cap} provider tool calls of the day (UTC) are used up",
    es: 'provider_tool_rate_limit_exceeded: se agotaron las %{cap} llamadas a herramientas del proveedor del día (UTC) del espacio de trabajo',
  },
  workflow_concurrency_reached: {
    en: 'Concurrent workflow run limit reached; retry later or use async delivery',
    es: 'Se alcanzó el límite de ejecuciones simultáneas de flujos de trabajo; vuelva a intentarlo más tarde o use la entrega asíncrona',
  },
  workflow_run_failed: { en: 'The workflow run failed', es: 'La ejecución del flujo de trabajo falló' },
  // Problems of a workflow definition (the `%{reason}` of invalid_workflow_definitions).
  workflow_field_unknown: { en: 'is not a known field', es: 'no es un campo conocido' },
  workflow_field_required: { en: 'is required', es: 'es obligatorio' },
  workflow_deployment_repeated: {
    en: 'deployment %{name} is already defined at %{at}',
    es: 'el despliegue %{name} ya está definido en %{at}',
  },
  workflow_variant_repeated: { en: 'variant %{name} is already defined at %{at}', es: 'la variante %{name} ya está definida en %{at}' },
  workflow_model_unknown: { en: 'unknown model %{model}', es: 'modelo desconocido %{model}' },
  workflow_step_id_repeated: { en: 'step id %{id} is already used at %{at}', es: 'el id de paso %{id} ya se usa en %{at}' },
  workflow_template_invalid: { en: 'is not a valid template: %{reason}', es: 'no es una plantilla válida: %{reason}' },
  workflow_reference_loop_only: {
    en: "refers to %{root}, which is defined only inside a loop's steps",
    es: 'hace referencia a %{root}, que solo está definido dentro de los pasos de un bucle',
  },
  workflow_reference_later: {
    en: 'refers to step %{root}, which does not run before this point',
    es: 'hace referencia al paso %{root}, que no se ejecuta antes de este punto',
  },
  workflow_reference_unknown: {
    en: 'refers to %{root}, which is neither an input nor a step',
    es: 'hace referencia a %{root}, que no es ni una entrada ni un paso',
  },
  workflow_name_reserved: { en: '%{name} is reserved', es: '%{name} está reservado' },
  workflow_step_is_input: { en: '%{id} is also an input name', es: '%{id} también es el nombre de una entrada' },
  workflow_too_many_steps: {
    en: 'a variant holds at most %{max} steps (nested ones included), not %{count}',
    es: 'una variante contiene como máximo %{max} pasos (incluidos los anidados), no %{count}',
  },
  workflow_prompt_both: {
    en: 'a prompt step has either model and messages, or deployment and variant, not both',
    es: 'un paso de prompt tiene `model` y `messages`, o `deployment` y `variant`, no ambos',
  },
  workflow_prompt_neither: {
    en: 'a prompt step needs model and messages, or deployment and variant',
    es: 'un paso de prompt necesita `model` y `messages`, o `deployment` y `variant`',
  },
  workflow_prompt_inputs_with_model: {
    en: 'goes with deployment, not model (write the values into messages)',
    es: 'va con `deployment`, no con `model` (escriba los valores en `messages`)',
  },
  workflow_prompt_variant_sets: {
    en: 'goes with model, not deployment (the deployed variant sets its own)',
    es: 'va con `model`, no con `deployment` (la variante desplegada define el suyo)',
  },
  workflow_field_required_with: { en: 'is required with %{field}', es: 'es obligatorio con %{field}' },
  workflow_field_goes_with: { en: 'goes with %{field}, not %{other}', es: 'va con %{field}, no con %{other}' },
  workflow_clause_right_unused: { en: 'is not taken by %{op}', es: '%{op} no lo admite' },
  workflow_clause_right_required: { en: 'is required by %{op}', es: '%{op} lo requiere' },
  workflow_when_one_group: { en: 'needs exactly one of all and any', es: 'necesita exactamente uno de `all` y `any`' },
  workflow_input_default_required: { en: 'a required input takes no default', es: 'una entrada obligatoria no admite valor por defecto' },
  workflow_input_default_type: { en: 'must be a %{type} value', es: 'debe ser un valor de tipo %{type}' },
  workflow_step_failed: { en: '%{reason}', es: 'La ejecución del flujo de trabajo falló: %{reason}' },
  // Why a workflow run failed (stored on the run as its `error_detail`, the English text as its `error_message`).
  workflow_run_deadline: {
    en: 'The workflow run did not finish within its %{seconds} s time-out',
    es: 'La ejecución del flujo de trabajo no terminó dentro de su tiempo límite de %{seconds} s',
  },
  workflow_run_lease_lost: { en: 'The run was taken from this worker', es: 'Otro proceso de trabajo tomó la ejecución' },
  workflow_run_stopped: { en: 'The run was stopped', es: 'La ejecución se detuvo' },
  workflow_run_cancelled: { en: 'The run was cancelled', es: 'La ejecución se canceló' },
  workflow_run_step_limit: {
    en: "The run would execute more than the plan's %{limit} steps",
    es: 'La ejecución superaría los %{limit} pasos de su plan',
  },
  workflow_step_error: { en: 'The step failed', es: 'El paso falló' },
  workflow_step_unexpected: { en: 'The step failed unexpectedly', es: 'El paso falló de forma inesperada' },
  workflow_worker_stopped: {
    en: 'The worker running this workflow run stopped and no other worker took it over',
    es: 'El proceso de trabajo que ejecutaba esta ejecución de flujo de trabajo se detuvo y ningún otro la retomó',
  },
  workflow_run_not_executed: {
    en: 'The workflow run could not be executed',
    es: 'No se pudo ejecutar la ejecución del flujo de trabajo',
  },
  workflow_run_not_enqueued: {
    en: 'The workflow run could not be enqueued',
    es: 'No se pudo poner en cola la ejecución del flujo de trabajo',
  },
  workflow_sync_timeout: {
    en: 'The workflow run did not finish within %{seconds} s; it goes on: GET /v1/workflow_runs/%{request_id} shows it',
    es: 'La ejecución del flujo de trabajo no terminó en %{seconds} s; continúa: GET /v1/workflow_runs/%{request_id} la muestra',
  },
  step_run_by_engine: { en: 'Step type %{type} is run by the engine', es: 'El motor ejecuta el paso de tipo %{type}' },
  web_search_unconfigured: {
    en: 'No web search provider is configured (WEB_SEARCH_PROVIDER)',
    es: 'No hay ningún proveedor de búsqueda web configurado (WEB_SEARCH_PROVIDER)',
  },
  tool_call_failed: { en: 'The tool call failed', es: 'La llamada a la herramienta falló' },
  web_tool_failed: { en: '%{reason}', es: 'La herramienta web falló: %{reason}' },
  // Why a web tool failed (libs/providers/src/web), nested as web_tool_failed's `%{reason}`.
  web_answered_too_much: { en: '%{provider} answered more than %{mebibytes} MiB', es: '%{provider} respondió más de %{mebibytes} MiB' },
  web_no_answer_in_time: { en: '%{provider} did not answer within %{ms} ms', es: '%{provider} no respondió en %{ms} ms' },
  web_unreachable: { en: '%{provider} could not be reached', es: 'no se pudo contactar con %{provider}' },
  web_unreachable_code: { en: '%{provider} could not be reached (%{code})', es: 'no se pudo contactar con %{provider} (%{code})' },
  web_answered_status: { en: '%{provider} answered HTTP %{status}%{phrase}', es: '%{provider} respondió HTTP %{status}%{phrase}' },
  web_answered_not_json: { en: '%{provider} answered something that is not JSON', es: '%{provider} respondió algo que no es JSON' },
  web_setting_not_absolute: { en: '%{setting} is not an absolute URL', es: '%{setting} no es una URL absoluta' },
  web_setting_not_http: { en: '%{setting} must be an http(s) URL', es: '%{setting} debe ser una URL http(s)' },
  web_searxng_json_format: {
    en: '%{reason} (is the json format enabled in its search.formats?)',
    es: '%{reason} (¿está habilitado el formato json en su search.formats?)',
  },
  web_search_variable_missing: {
    en: 'WEB_SEARCH_PROVIDER is %{provider} but %{variable} is not set',
    es: 'WEB_SEARCH_PROVIDER es %{provider} pero %{variable} no está definida',
  },
  web_search_provider_unknown: {
    en: 'WEB_SEARCH_PROVIDER must be one of %{providers}',
    es: 'WEB_SEARCH_PROVIDER debe ser uno de estos: %{providers}',
  },
  http_response_too_large: {
    en: 'The response of %{url} is larger than %{bytes} bytes',
    es: 'La respuesta de %{url} supera los %{bytes} bytes',
  },
  http_status: { en: '%{method} %{url} answered %{status}', es: '%{method} %{url} respondió %{status}' },
  http_timeout: { en: '%{method} %{url} did not answer in time', es: '%{method} %{url} no respondió a tiempo' },
  http_failed: { en: '%{method} %{url} failed', es: '%{method} %{url} falló' },

  // Providers.
  provider_base_url_invalid: { en: '%{setting} is not an http(s) URL', es: '%{setting} no es una URL http(s)' },
  provider_max_retries_invalid: {
    en: 'PROVIDER_MAX_RETRIES must be an integer from 0 to 10',
    es: 'PROVIDER_MAX_RETRIES debe ser un entero de 0 a 10',
  },
  local_embedding_threads_invalid: {
    en: 'LOCAL_EMBEDDING_THREADS must be an integer from 1 to 64',
    es: 'LOCAL_EMBEDDING_THREADS debe ser un entero de 1 a 64',
  },
  provider_no_credentials: {
    en: 'No credentials configured for provider %{provider}',
    es: 'No hay credenciales configuradas para el proveedor %{provider}',
  },
  provider_no_base_url: {
    en: 'No base URL configured for provider %{provider}',
    es: 'No hay URL base configurada para el proveedor %{provider}',
  },
  provider_request_failed: { en: '%{provider} request failed: %{reason}', es: 'La solicitud a %{provider} falló: %{reason}' },
  // Workspace provider keys (the spec's decisions on usage governance).
  personal_model_no_credentials_for: {
    en: 'The workspace has no credentials stored for provider %{provider}',
    es: 'El espacio de trabajo no tiene credenciales guardadas para el proveedor %{provider}',
  },
  personal_model_refused_by: {
    en: '%{provider} rejected the workspace credentials',
    es: '%{provider} rechazó las credenciales del espacio de trabajo',
  },
  provider_credential_not_found: {
    en: 'No credentials stored for provider %{provider}',
    es: 'No hay credenciales guardadas para el proveedor %{provider}',
  },
  provider_credential_unknown_provider: { en: 'Unknown provider: %{provider}', es: 'Proveedor desconocido: %{provider}' },
  provider_credential_keyless: {
    en: 'Provider %{provider} takes no credentials',
    es: 'El proveedor %{provider} no usa credenciales',
  },
  provider_credential_test_failed: {
    en: 'The credentials test with %{provider} failed: %{reason}',
    es: 'La prueba de las credenciales con %{provider} falló: %{reason}',
  },
  // Why a provider call failed (libs/providers), nested as provider_request_failed's `%{reason}`.
  provider_reason_after_attempts: { en: '%{reason} after %{count} attempts', es: '%{reason} tras %{count} intentos' },
  provider_reason_authentication: { en: 'authentication failed (HTTP %{status})', es: 'la autenticación falló (HTTP %{status})' },
  provider_reason_rate_limited: { en: 'rate limited (HTTP 429)', es: 'límite de frecuencia alcanzado (HTTP 429)' },
  provider_reason_unavailable: { en: 'provider unavailable (HTTP %{status})', es: 'proveedor no disponible (HTTP %{status})' },
  provider_reason_rejected: { en: 'request rejected (HTTP %{status})', es: 'solicitud rechazada (HTTP %{status})' },
  provider_reason_rejected_saying: {
    en: 'request rejected (HTTP %{status}): %{message}',
    es: 'solicitud rechazada (HTTP %{status}): %{message}',
  },
  provider_reason_connect: { en: 'could not connect', es: 'no se pudo conectar' },
  provider_reason_timed_out: { en: 'no answer within %{seconds} s', es: 'sin respuesta en %{seconds} s' },
  provider_reason_broken: { en: 'the connection broke during the response', es: 'la conexión se cortó durante la respuesta' },
  provider_reason_unreadable: { en: 'the response could not be read', es: 'no se pudo leer la respuesta' },
  provider_reason_stream_reported: { en: 'the stream reported %{type}', es: 'la transmisión informó de %{type}' },
  provider_reason_stream_ended: {
    en: 'the stream ended before the answer finished',
    es: 'la transmisión terminó antes de completarse la respuesta',
  },
  provider_reason_no_output: { en: 'no output was generated', es: 'no se generó ninguna salida' },
  provider_reason_tool_choice: {
    en: 'the model answered against the tool choice',
    es: 'el modelo respondió en contra de la elección de herramienta',
  },
  provider_reason_unexpected: { en: 'unexpected failure', es: 'fallo inesperado' },
  provider_no_embedding_models: {
    en: 'Provider %{provider} offers no embedding models',
    es: 'El proveedor %{provider} no ofrece modelos de embeddings',
  },
  provider_no_language_models: {
    en: 'Provider %{provider} offers no language models',
    es: 'El proveedor %{provider} no ofrece modelos de lenguaje',
  },
  local_embedding_model_missing: {
    en: 'The local provider has no embedding model %{model}',
    es: 'El proveedor local no tiene el modelo de embeddings %{model}',
  },
  tool_choice_unknown: {
    en: 'toolChoice names %{tool}, which is not among the tools',
    es: 'toolChoice nombra %{tool}, que no está entre las herramientas',
  },

  // MCP tools of agents and workflow steps (the spec's decisions, MCP: agents and steps).
  validation_mcp_not_list: {
    en: '%{property} must be null or a list of at most %{max} {server, tools} entries',
    es: '%{property} debe ser null o una lista de como máximo %{max} entradas {server, tools}',
  },
  validation_mcp_entry: {
    en: '%{property}[%{index}] must be an object with only server and tools',
    es: '%{property}[%{index}] debe ser un objeto con solo server y tools',
  },
  validation_mcp_server: {
    en: '%{property}[%{index}].server must be 1 to 24 lower-case letters, digits, "_" or "-"',
    es: '%{property}[%{index}].server debe tener de 1 a 24 letras minúsculas, dígitos, "_" o "-"',
  },
  validation_mcp_server_repeated: {
    en: '%{property}[%{index}].server names %{server} again',
    es: '%{property}[%{index}].server vuelve a nombrar %{server}',
  },
  validation_mcp_tools: {
    en: '%{property}[%{index}].tools must be "*" or a list of 1 to %{max} tool names of 1 to %{length} characters',
    es: '%{property}[%{index}].tools debe ser "*" o una lista de 1 a %{max} nombres de herramienta de 1 a %{length} caracteres',
  },
  validation_mcp_server_unknown: {
    en: '%{field} names %{server}, which is not an MCP server of this workspace',
    es: '%{field} nombra %{server}, que no es un servidor MCP de este espacio de trabajo',
  },
  mcp_server_disabled: { en: 'The MCP server %{server} is disabled', es: 'El servidor MCP %{server} está desactivado' },
  mcp_tool_changed: {
    en: 'The MCP tool %{tool} of %{server} changed since its server was approved: approve it again (POST /v1/private/mcp_servers/%{server}/approve)',
    es: 'La herramienta MCP %{tool} de %{server} cambió desde que se aprobó su servidor: apruébelo de nuevo (POST /v1/private/mcp_servers/%{server}/approve)',
  },
  mcp_tool_unapproved: {
    en: 'The MCP tool %{tool} of %{server} is not among the approved tools of its server: approve it (POST /v1/private/mcp_servers/%{server}/approve)',
    es: 'La herramienta MCP %{tool} de %{server} no está entre las herramientas aprobadas de su servidor: apruébelo (POST /v1/private/mcp_servers/%{server}/approve)',
  },
  mcp_tool_gone: {
    en: 'The MCP server %{server} no longer lists the approved tool %{tool}',
    es: 'El servidor MCP %{server} ya no ofrece la herramienta aprobada %{tool}',
  },
  mcp_tool_error: {
    en: 'The MCP tool %{tool} of %{server} answered an error: %{reason}',
    es: 'La herramienta MCP %{tool} de %{server} respondió con un error: %{reason}',
  },
  mcp_tool_unreachable: {
    en: 'The MCP tool %{tool} of %{server} could not be called (%{stage})',
    es: 'No se pudo llamar a la herramienta MCP %{tool} de %{server} (%{stage})',
  },
  // Experiment runs (apps/invocation/src/experiments): refused runs and candidates, a run not found.
  experiment_run_not_found: { en: 'Experiment run not found', es: 'Ejecución de experimento no encontrada' },
  experiment_dataset_gone: {
    en: 'The dataset version the run reads is gone',
    es: 'La versión del conjunto de datos que lee la ejecución ya no existe',
  },
  experiment_candidate_type_named: {
    en: 'Candidate %{name} is a %{type}: experiment runs take prompt candidates only',
    es: 'El candidato %{name} es de tipo %{type}: las ejecuciones de experimentos solo admiten candidatos de prompt',
  },
  experiment_run_cells_over_limit: {
    en: 'The run would have %{cells} cells (rows × active candidates); the limit is %{limit}',
    es: 'La ejecución tendría %{cells} celdas (filas × candidatos activos); el límite es %{limit}',
  },
  experiment_candidate_source: {
    en: 'names either a deployment and a variant, or an inline prompt',
    es: 'debe indicar un despliegue y una variante, o un prompt en línea',
  },
  experiment_candidate_version_and_label: {
    en: 'names a version or a label, not both',
    es: 'debe indicar una versión o una etiqueta, no ambas',
  },
  experiment_candidate_inline_selector: {
    en: 'an inline prompt has no version or label',
    es: 'un prompt en línea no tiene versión ni etiqueta',
  },
  experiment_candidate_defined_twice: {
    en: 'Candidate names must be unique in a run: %{names}',
    es: 'Los nombres de los candidatos deben ser únicos en una ejecución: %{names}',
  },
  experiment_baseline_unknown: {
    en: 'The baseline %{name} is not a candidate of the run',
    es: 'La línea base %{name} no es un candidato de la ejecución',
  },
  experiment_no_active_candidate: {
    en: 'The run has no active candidate',
    es: 'La ejecución no tiene ningún candidato activo',
  },
  // Datasets (apps/invocation/src/datasets): not found, refused rows, versions and imports.
  dataset_not_found: { en: 'Dataset not found', es: 'Conjunto de datos no encontrado' },
  dataset_version_not_found: {
    en: 'The dataset has no version %{version}',
    es: 'El conjunto de datos no tiene la versión %{version}',
  },
  dataset_name_exists: { en: 'A dataset named %{name} already exists', es: 'Ya existe un conjunto de datos llamado %{name}' },
  dataset_rows_not_array: { en: 'must be a list of rows', es: 'debe ser una lista de filas' },
  dataset_row_refused: { en: 'row %{index}: %{reason}', es: 'fila %{index}: %{reason}' },
  dataset_row_not_object: {
    en: 'a row must be an object {inputs, expected_output?, metadata?}',
    es: 'una fila debe ser un objeto {inputs, expected_output?, metadata?}',
  },
  dataset_row_unknown_field: {
    en: '%{field} is not a field of a row (inputs, expected_output, metadata; and id in an update)',
    es: '%{field} no es un campo de una fila (inputs, expected_output, metadata; e id en una actualización)',
  },
  dataset_row_id_invalid: {
    en: 'id must be the UUID of a row of the base version',
    es: 'id debe ser el UUID de una fila de la versión base',
  },
  dataset_row_inputs_not_object: { en: 'inputs must be an object', es: 'inputs debe ser un objeto' },
  dataset_field_needs: { en: '%{field} is accepted only with %{other}', es: '%{field} solo se admite junto con %{other}' },
  dataset_field_excludes: { en: '%{field} cannot be given with %{other}', es: '%{field} no se admite junto con %{other}' },
  dataset_row_too_large: {
    en: 'Row %{index} is %{bytes} bytes of JSON; a row may have at most %{max}',
    es: 'La fila %{index} ocupa %{bytes} bytes de JSON; una fila admite como máximo %{max}',
  },
  dataset_line_too_large: {
    en: 'The row on line %{line} is %{bytes} bytes of JSON; a row may have at most %{max}',
    es: 'La fila de la línea %{line} ocupa %{bytes} bytes de JSON; una fila admite como máximo %{max}',
  },
  dataset_row_ids_unknown: {
    en: 'The base version has no row %{ids}',
    es: 'La versión base no tiene la fila %{ids}',
  },
  dataset_row_id_repeated: {
    en: 'Row %{id} is named more than once in update and remove',
    es: 'La fila %{id} aparece más de una vez en update y remove',
  },
  dataset_upload_not_utf8: { en: 'The upload is not UTF-8 text', es: 'El archivo subido no es texto UTF-8' },
  dataset_line_refused: { en: 'line %{line}: %{reason}', es: 'línea %{line}: %{reason}' },
  dataset_line_not_json: { en: 'line %{line} is not valid JSON', es: 'la línea %{line} no es JSON válido' },
  dataset_csv_unreadable: {
    en: 'The CSV cannot be read near line %{line}: %{reason}',
    es: 'No se puede leer el CSV cerca de la línea %{line}: %{reason}',
  },
  dataset_csv_no_header: { en: 'The CSV has no header row', es: 'El CSV no tiene fila de encabezados' },
  dataset_csv_header_invalid: {
    en: 'CSV header %{index} is empty or repeated (%{name})',
    es: 'El encabezado %{index} del CSV está vacío o repetido (%{name})',
  },
  dataset_columns_invalid: {
    en: 'columns must be a JSON object mapping CSV headers to inputs.<name>, expected_output or metadata.<key>',
    es: 'columns debe ser un objeto JSON que asigne encabezados del CSV a inputs.<nombre>, expected_output o metadata.<clave>',
  },
  dataset_columns_target_invalid: {
    en: 'columns maps %{header} to %{target}, which is not inputs.<name>, expected_output or metadata.<key>',
    es: 'columns asigna %{header} a %{target}, que no es inputs.<nombre>, expected_output ni metadata.<clave>',
  },
  dataset_columns_target_repeated: {
    en: 'columns maps more than one header to %{target}',
    es: 'columns asigna más de un encabezado a %{target}',
  },
  dataset_columns_header_missing: {
    en: 'columns names the header %{header}, which the CSV does not have',
    es: 'columns nombra el encabezado %{header}, que el CSV no tiene',
  },
  dataset_columns_not_csv: { en: 'columns applies to CSV imports only', es: 'columns solo se aplica a importaciones CSV' },

  // Experiment runs' evaluators (apps/invocation/src/experiments/evaluators): a refused list names
  // the field (`evaluators[2].threshold`), the reason nested as invalid_evaluator's `%{reason}`.
  invalid_evaluator: { en: 'Invalid evaluator %{field}: %{reason}', es: 'Evaluador no válido %{field}: %{reason}' },
  evaluator_list_size: {
    en: 'must be a list of 1 to %{max} evaluators',
    es: 'debe ser una lista de 1 a %{max} evaluadores',
  },
  evaluator_not_object: { en: 'must be an object', es: 'debe ser un objeto' },
  evaluator_type_unknown: { en: 'must be one of %{types}', es: 'debe ser uno de estos: %{types}' },
  evaluator_field_required: { en: 'is required', es: 'es obligatorio' },
  evaluator_field_unknown: { en: 'is not a field of %{type} evaluators', es: 'no es un campo de los evaluadores %{type}' },
  evaluator_name_invalid: {
    en: 'must be 1 to 64 letters, digits, _, . or -, starting with a letter or digit',
    es: 'debe tener de 1 a 64 letras, dígitos, _, . o -, y empezar por una letra o un dígito',
  },
  evaluator_name_repeated: {
    en: '%{name} is already the name of %{at}',
    es: '%{name} ya es el nombre de %{at}',
  },
  evaluator_number_range: { en: 'must be a number from %{min} to %{max}', es: 'debe ser un número de %{min} a %{max}' },
  evaluator_number_positive: { en: 'must be a number greater than 0', es: 'debe ser un número mayor que 0' },
  evaluator_text_length: {
    en: 'must be text of %{min} to %{max} characters',
    es: 'debe ser un texto de %{min} a %{max} caracteres',
  },
  evaluator_boolean: { en: 'must be true or false', es: 'debe ser true o false' },
  evaluator_value_too_large: { en: 'must be at most %{kib} KiB as JSON', es: 'debe ocupar como máximo %{kib} KiB en JSON' },
  evaluator_pattern_invalid: {
    en: 'is not a valid RE2 pattern: %{reason}',
    es: 'no es un patrón RE2 válido: %{reason}',
  },
  evaluator_model_unknown: { en: '%{model} is not in the model catalog', es: '%{model} no está en el catálogo de modelos' },
  evaluator_model_deprecated: { en: '%{model} is deprecated', es: '%{model} está obsoleto' },
  evaluator_model_not_chat: { en: '%{model} is not a chat model', es: '%{model} no es un modelo de chat' },
  evaluator_model_unusable: {
    en: '%{model} cannot be called here: %{reason}',
    es: 'no se puede llamar a %{model} aquí: %{reason}',
  },
  evaluator_similarity_unavailable: {
    en: 'similarity needs the embedding model %{model} (EXPERIMENT_EMBEDDING_MODEL), which cannot be used: %{reason}',
    es: 'similarity necesita el modelo de embeddings %{model} (EXPERIMENT_EMBEDDING_MODEL), que no se puede usar: %{reason}',
  },
  evaluator_not_embedding_model: { en: 'it is not an embedding model', es: 'no es un modelo de embeddings' },
} as const satisfies Record<string, Readonly<Record<'en' | 'es', string>>>;
