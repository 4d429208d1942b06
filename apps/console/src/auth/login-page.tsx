import { Button, Container, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { apiGet } from '../api/api-client';
import { ApiErrorAlert } from '../api/api-error-alert';
import { returnPath } from './return-path';
import { useSession } from './session';
import { WORKSPACE_PATH, type WorkspaceView } from './workspace';

export function LoginPage() {
  const session = useSession();
  const navigate = useNavigate();
  // The screen first asked for, when the console sent the user here from it.
  const { redirect } = useSearch({ from: '/login' });
  const [key, setKey] = useState('');
  const queryClient = useQueryClient();
  // The key's workspace (which the layout needs anyway) is the check: a refused key shows its error here.
  const check = useMutation({
    mutationFn: (candidate: string) => apiGet<WorkspaceView>(candidate, WORKSPACE_PATH),
    onSuccess: (workspace, candidate) => {
      queryClient.setQueryData(['workspace', candidate], workspace);
      session.logIn(candidate);
      void navigate({ href: returnPath(redirect) });
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
