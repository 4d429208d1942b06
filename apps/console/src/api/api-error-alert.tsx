import { Alert, Code, Text } from '@mantine/core';
import { ApiError } from './api-error';

/** An API error as the catalog worded it, with the ids to quote to an operator. */
export function ApiErrorAlert({ error }: { error: unknown }) {
  const shaped = error instanceof ApiError ? error : null;
  return (
    <Alert color="red" title={shaped ? `Error ${shaped.status}${shaped.errorCode ? ` (${shaped.errorCode})` : ''}` : 'Error'} role="alert">
      <Text size="sm">{shaped?.message ?? 'The request did not reach the server.'}</Text>
      {shaped?.requestId && (
        <Text size="sm">
          Request id: <Code data-testid="error-request-id">{shaped.requestId}</Code>
        </Text>
      )}
      {shaped?.traceId && (
        <Text size="sm">
          Trace id: <Code data-testid="error-trace-id">{shaped.traceId}</Code>
        </Text>
      )}
    </Alert>
  );
}
