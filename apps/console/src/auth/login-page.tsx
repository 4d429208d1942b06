import { Button, Container, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { apiGet } from '../api/api-client';
import { ApiErrorAlert } from '../api/api-error-alert';
import { useSession } from './session';

/** A cheap authenticated private route: the newest run, which the Runs screen shows first anyway. */
const KEY_CHECK_PATH = '/v1/private/requests?limit=1';

export function LoginPage() {
  const session = useSession();
  const navigate = useNavigate();
  const [key, setKey] = useState('');
  const check = useMutation({
    mutationFn: (candidate: string) => apiGet<unknown>(candidate, KEY_CHECK_PATH),
    onSuccess: (_answer, candidate) => {
      session.logIn(candidate);
      void navigate({ to: '/runs' });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (key.trim() !== '') check.mutate(key.trim());
  };
  return (
    <Container size={420} py="xl">
      <form onSubmit={submit} aria-labelledby="login-title">
        <Stack>
          <Title order={1} id="login-title">
            Log in to Waggle
          </Title>
          <Text size="sm">
            Paste a workspace API key. It stays in this tab only (session storage) and is sent to this gateway in the Authorization header.
          </Text>
          <PasswordInput
            label="Workspace API key"
            value={key}
            onChange={(event) => setKey(event.currentTarget.value)}
            autoComplete="off"
            required
            data-autofocus
          />
          {check.isError && <ApiErrorAlert error={check.error} />}
          <Button type="submit" loading={check.isPending}>
            Log in
          </Button>
        </Stack>
      </form>
    </Container>
  );
}
