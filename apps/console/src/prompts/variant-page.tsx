import { Anchor, Badge, Box, Button, Checkbox, Group, NativeSelect, ScrollArea, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { apiGet, apiRequest } from '../api/api-client';
import { ApiErrorAlert } from '../api/api-error-alert';
import { useSession } from '../auth/session';
import { ConfirmModal } from './confirm-modal';
import {
  deploymentsPath,
  kindOf,
  releasePath,
  splitTargetText,
  versionsPath,
  type DeploymentKind,
  type PromptDeploymentSummary,
  type ReleaseHistoryEntry,
  type ReleaseProtection,
  type VariantVersion,
} from './prompts-api';
import { diffRenderings, renderVersion } from './version-render';

const route = getRouteApi('/prompts/$kind/$deployment/$variant');

/** One variant: its versions (with the deployed one and labels), a diff between two of them, and for a prompt its releases. */
export function VariantPage() {
  const params = route.useParams();
  const kind = kindOf(params.kind);
  const { key } = useSession();
  const versions = useQuery<VariantVersion[]>({
    queryKey: ['versions', kind, params.deployment, params.variant],
    queryFn: ({ signal }) =>
      apiGet<{ versions: VariantVersion[] }>(key ?? '', versionsPath(kind, params.deployment, params.variant), signal).then(
        (answer) => answer.versions,
      ),
    enabled: key !== null,
  });
  const list = [...(versions.data ?? [])].sort((a, b) => b.version - a.version);
  return (
    <Stack>
      <Anchor component={Link} to="/prompts" size="sm">
        All deployments
      </Anchor>
      <Title order={1}>
        {params.deployment} / {params.variant}
      </Title>
      <Text size="sm">{kind === 'prompts' ? 'Prompt' : 'Workflow'} variant</Text>
      {versions.isError && <ApiErrorAlert error={versions.error} />}
      <VersionsTable kind={kind} versions={list} loading={versions.isPending} />
      {kind === 'prompts' && <SplitSection deployment={params.deployment} variant={params.variant} />}
      {list.length > 0 && <VersionDiff versions={list} />}
      {kind === 'prompts' && list.length > 0 && <Releases deployment={params.deployment} variant={params.variant} versions={list} />}
    </Stack>
  );
}

function VersionsTable({ kind, versions, loading }: { kind: DeploymentKind; versions: VariantVersion[]; loading: boolean }) {
  return (
    <Stack gap="xs">
      <Title order={2} size="h3">
        Versions
      </Title>
      <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Versions table' }}>
        <Table striped data-testid="versions-table">
          <Table.Caption>{loading ? 'Loading versions…' : `${versions.length} version(s), newest first`}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Version</Table.Th>
              <Table.Th scope="col">Pointers</Table.Th>
              {kind === 'prompts' && <Table.Th scope="col">Model</Table.Th>}
              <Table.Th scope="col">Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {versions.map((version) => (
              <Table.Tr key={version.version_id} data-testid="version-row">
                <Table.Td>{version.version}</Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {version.current && (
                      <Badge color="teal.9" variant="outline">
                        deployed
                      </Badge>
                    )}
                    {(version.labels ?? []).map((label) => (
                      <Badge key={label} color="blue.9" variant="outline">
                        {label}
                      </Badge>
                    ))}
                  </Group>
                </Table.Td>
                {kind === 'prompts' && <Table.Td>{version.model ?? ''}</Table.Td>}
                <Table.Td>{new Date(version.created_at).toLocaleString()}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </Stack>
  );
}

/**
 * A prompt variant's traffic split, from the deployments list (the same query as the deployments
 * screen, so the two agree): each target with its weight, or that the variant is not a split.
 */
function SplitSection({ deployment, variant }: { deployment: string; variant: string }) {
  const { key } = useSession();
  const deployments = useQuery<PromptDeploymentSummary[]>({
    queryKey: ['deployments', 'prompts'],
    queryFn: ({ signal }) =>
      apiGet<{ prompts: PromptDeploymentSummary[] }>(key ?? '', deploymentsPath('prompts'), signal).then((answer) => answer.prompts ?? []),
    enabled: key !== null,
  });
  const split = deployments.data
    ?.find((listed) => listed.deployment === deployment)
    ?.variants.find((listed) => listed.name === variant)?.split;
  return (
    <Stack gap="xs">
      <Title order={2} size="h3">
        Split
      </Title>
      {deployments.isError && <ApiErrorAlert error={deployments.error} />}
      {deployments.isPending && <Text size="sm">Loading the split…</Text>}
      {deployments.isSuccess && !split && (
        <Text size="sm" data-testid="split-none">
          Not a split: an invoke is served the deployed version, or the label or version it names.
        </Text>
      )}
      {split && (
        <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Split table' }}>
          <Table striped data-testid="split-table">
            <Table.Caption>
              An invoke that names no label or version is served one of these, by weight (sticky by its user); split id {split.id}
            </Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Target</Table.Th>
                <Table.Th scope="col">Weight</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {split.targets.map((target, index) => (
                <Table.Tr key={index} data-testid="split-row">
                  <Table.Td>{splitTargetText(target)}</Table.Td>
                  <Table.Td>{target.weight}%</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      )}
    </Stack>
  );
}

/** The line diff of two versions' stable YAML renderings, the versions chosen in the URL. */
function VersionDiff({ versions }: { versions: VariantVersion[] }) {
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const numbers = versions.map((version) => version.version);
  const from = search.from !== undefined && numbers.includes(search.from) ? search.from : (numbers[1] ?? numbers[0]);
  const to = search.to !== undefined && numbers.includes(search.to) ? search.to : numbers[0];
  const rendering = (number: number) => renderVersion(versions.find((version) => version.version === number) ?? {});
  const lines = diffRenderings(rendering(from), rendering(to));
  const choices = numbers.map((number) => ({ value: String(number), label: `Version ${number}` }));
  const changed = lines.filter((line) => line.kind !== 'same').length;
  return (
    <Stack gap="xs">
      <Title order={2} size="h3">
        Diff between two versions
      </Title>
      <Group align="end">
        <NativeSelect
          label="From version"
          data={choices}
          value={String(from)}
          onChange={(event) => void navigate({ search: (prev) => ({ ...prev, from: Number(event.currentTarget.value) }), replace: true })}
        />
        <NativeSelect
          label="To version"
          data={choices}
          value={String(to)}
          onChange={(event) => void navigate({ search: (prev) => ({ ...prev, to: Number(event.currentTarget.value) }), replace: true })}
        />
      </Group>
      <Text size="sm" role="status" aria-live="polite" data-testid="diff-summary">
        {changed === 0 ? `Versions ${from} and ${to} are the same.` : `${changed} changed line(s) from version ${from} to version ${to}.`}
      </Text>
      <Box
        component="ol"
        tabIndex={0}
        aria-label={`Diff from version ${from} to version ${to}`}
        data-testid="version-diff"
        style={{
          listStyle: 'none',
          padding: 0,
          margin: 0,
          overflowX: 'auto',
          border: '1px solid var(--mantine-color-gray-4)',
          borderRadius: 4,
        }}
      >
        {lines.map((line, index) => (
          <Box
            component="li"
            key={index}
            data-kind={line.kind}
            bg={line.kind === 'added' ? 'teal.0' : line.kind === 'removed' ? 'red.0' : undefined}
            style={{ fontFamily: 'monospace', fontSize: 13, whiteSpace: 'pre', padding: '0 8px' }}
          >
            <Text span ff="monospace" size="sm" c={line.kind === 'added' ? 'teal.9' : line.kind === 'removed' ? 'red.9' : undefined}>
              {/* The sign says what changed without relying on the colour. */}
              {line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : '  '}
              {line.text}
            </Text>
          </Box>
        ))}
      </Box>
    </Stack>
  );
}

type Move =
  | { type: 'label'; label: string; version: number }
  | { type: 'unlabel'; label: string }
  | { type: 'promote'; version: number; label?: string; reason?: string; override: boolean }
  | { type: 'rollback'; label?: string; reason?: string };

function describeMove(move: Move, deployment: string, variant: string): { title: string; text: string; confirm: string } {
  const name = `${deployment} / ${variant}`;
  switch (move.type) {
    case 'label':
      return { title: 'Set a label', text: `Point the label “${move.label}” of ${name} at version ${move.version}?`, confirm: 'Set label' };
    case 'unlabel':
      return { title: 'Remove a label', text: `Remove the label “${move.label}” from ${name}?`, confirm: 'Remove label' };
    case 'promote':
      return {
        title: 'Promote a version',
        text: `Move ${move.label ? `the label “${move.label}”` : 'the deployed version'} of ${name} to version ${move.version}?${move.override ? ' The release gate is overridden; the reason is kept in the history.' : ''}`,
        confirm: 'Promote',
      };
    case 'rollback':
      return {
        title: 'Roll back',
        text: `Move ${move.label ? `the label “${move.label}”` : 'the deployed version'} of ${name} back to its previous target?`,
        confirm: 'Roll back',
      };
  }
}

/** A prompt variant's release pointers: protection, labels, promotion and rollback (each asked first), and the history. */
function Releases({ deployment, variant, versions }: { deployment: string; variant: string; versions: VariantVersion[] }) {
  const { key } = useSession();
  const queryClient = useQueryClient();
  const history = useQuery<ReleaseHistoryEntry[]>({
    queryKey: ['history', deployment, variant],
    queryFn: ({ signal }) =>
      apiGet<{ history: ReleaseHistoryEntry[] }>(key ?? '', releasePath(deployment, variant, 'history'), signal).then((a) => a.history),
    enabled: key !== null,
  });
  const protection = useQuery<ReleaseProtection>({
    queryKey: ['protection', deployment, variant],
    queryFn: ({ signal }) => apiGet<ReleaseProtection>(key ?? '', releasePath(deployment, variant, 'protection'), signal),
    enabled: key !== null,
  });
  const [move, setMove] = useState<Move | null>(null);
  const labels = [...new Set(versions.flatMap((version) => version.labels ?? []))].filter((label) => label !== 'latest').sort();
  const choices = versions.map((version) => ({ value: String(version.version), label: `Version ${version.version}` }));

  const [labelName, setLabelName] = useState('');
  const [labelVersion, setLabelVersion] = useState(choices[0]?.value ?? '');
  const [promoteVersion, setPromoteVersion] = useState(choices[0]?.value ?? '');
  const [promoteLabel, setPromoteLabel] = useState('');
  const [promoteReason, setPromoteReason] = useState('');
  const [override, setOverride] = useState(false);
  const [rollbackLabel, setRollbackLabel] = useState('');
  const [rollbackReason, setRollbackReason] = useState('');

  const perform = async (chosen: Move) => {
    const k = key ?? '';
    switch (chosen.type) {
      case 'label':
        await apiRequest(k, 'PUT', releasePath(deployment, variant, `labels/${encodeURIComponent(chosen.label)}`), {
          version: chosen.version,
        });
        break;
      case 'unlabel':
        await apiRequest(k, 'DELETE', releasePath(deployment, variant, `labels/${encodeURIComponent(chosen.label)}`));
        break;
      case 'promote':
        await apiRequest(k, 'POST', releasePath(deployment, variant, 'promote'), {
          version: chosen.version,
          ...(chosen.label && { label: chosen.label }),
          ...(chosen.reason && { reason: chosen.reason }),
          ...(chosen.override && { override: true }),
        });
        break;
      case 'rollback':
        await apiRequest(k, 'POST', releasePath(deployment, variant, 'rollback'), {
          ...(chosen.label && { label: chosen.label }),
          ...(chosen.reason && { reason: chosen.reason }),
        });
        break;
    }
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: ['versions', 'prompts', deployment, variant] }),
      queryClient.invalidateQueries({ queryKey: ['history', deployment, variant] }),
      queryClient.invalidateQueries({ queryKey: ['deployments'] }),
    ]);
  };
  const described = move && describeMove(move, deployment, variant);
  const submit = (event: FormEvent, chosen: Move) => {
    event.preventDefault();
    setMove(chosen);
  };
  const trimmed = (text: string) => text.trim() || undefined;

  return (
    <Stack gap="md">
      <Title order={2} size="h3">
        Releases
      </Title>
      {protection.isError && <ApiErrorAlert error={protection.error} />}
      {protection.data && (
        <Text size="sm" data-testid="protection">
          {protection.data.protected
            ? `Protected: moving the deployed version needs a completed experiment run with a pass rate of at least ${protection.data.min_pass_rate}, at most ${protection.data.max_age_days} day(s) old (or an override with a reason).`
            : 'Not protected: the deployed version moves on promotion and on every applied change.'}
        </Text>
      )}
      <Group align="start" wrap="wrap" gap="xl">
        <form
          aria-label="Set a label"
          onSubmit={(event) => submit(event, { type: 'label', label: labelName.trim(), version: Number(labelVersion) })}
        >
          <Stack gap="xs">
            <Title order={3} size="h5">
              Labels
            </Title>
            <TextInput
              label="Label"
              description="a-z, 0-9, _ . - (up to 36)"
              value={labelName}
              onChange={(e) => setLabelName(e.currentTarget.value)}
            />
            <NativeSelect
              label="Label version"
              data={choices}
              value={labelVersion}
              onChange={(e) => setLabelVersion(e.currentTarget.value)}
            />
            <Button type="submit" variant="light" disabled={labelName.trim() === ''}>
              Set label
            </Button>
            {labels.length > 0 && (
              <Group gap="xs">
                {labels.map((label) => (
                  <Button key={label} size="compact-sm" variant="default" onClick={() => setMove({ type: 'unlabel', label })}>
                    Remove label {label}
                  </Button>
                ))}
              </Group>
            )}
          </Stack>
        </form>
        <form
          aria-label="Promote a version"
          onSubmit={(event) =>
            submit(event, {
              type: 'promote',
              version: Number(promoteVersion),
              label: promoteLabel || undefined,
              reason: trimmed(promoteReason),
              override,
            })
          }
        >
          <Stack gap="xs">
            <Title order={3} size="h5">
              Promote
            </Title>
            <NativeSelect
              label="Promote version"
              data={choices}
              value={promoteVersion}
              onChange={(e) => setPromoteVersion(e.currentTarget.value)}
            />
            <NativeSelect
              label="Pointer to move"
              data={[{ value: '', label: 'deployed' }, ...labels.map((label) => ({ value: label, label }))]}
              value={promoteLabel}
              onChange={(e) => setPromoteLabel(e.currentTarget.value)}
            />
            <TextInput label="Promotion reason" value={promoteReason} onChange={(e) => setPromoteReason(e.currentTarget.value)} />
            <Checkbox
              label="Override the release gate (needs a reason)"
              checked={override}
              onChange={(e) => setOverride(e.currentTarget.checked)}
            />
            <Button type="submit" variant="light">
              Promote
            </Button>
          </Stack>
        </form>
        <form
          aria-label="Roll back"
          onSubmit={(event) => submit(event, { type: 'rollback', label: rollbackLabel || undefined, reason: trimmed(rollbackReason) })}
        >
          <Stack gap="xs">
            <Title order={3} size="h5">
              Roll back
            </Title>
            <NativeSelect
              label="Pointer to roll back"
              data={[{ value: '', label: 'deployed' }, ...labels.map((label) => ({ value: label, label }))]}
              value={rollbackLabel}
              onChange={(e) => setRollbackLabel(e.currentTarget.value)}
            />
            <TextInput label="Rollback reason" value={rollbackReason} onChange={(e) => setRollbackReason(e.currentTarget.value)} />
            <Button type="submit" variant="light">
              Roll back
            </Button>
          </Stack>
        </form>
      </Group>
      <ConfirmModal
        opened={move !== null}
        title={described?.title ?? ''}
        confirmLabel={described?.confirm ?? ''}
        onConfirm={() => (move ? perform(move) : Promise.resolve())}
        onClose={() => setMove(null)}
      >
        {described?.text}
      </ConfirmModal>
      <Title order={3} size="h4">
        History
      </Title>
      {history.isError && <ApiErrorAlert error={history.error} />}
      <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Release history' }}>
        <Table striped data-testid="history-table">
          <Table.Caption>{history.isPending ? 'Loading the history…' : `${history.data?.length ?? 0} move(s), newest first`}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">When</Table.Th>
              <Table.Th scope="col">Pointer</Table.Th>
              <Table.Th scope="col">From</Table.Th>
              <Table.Th scope="col">To</Table.Th>
              <Table.Th scope="col">Actor</Table.Th>
              <Table.Th scope="col">Reason</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(history.data ?? []).map((entry, index) => (
              <Table.Tr key={`${entry.at}-${index}`} data-testid="history-row">
                <Table.Td>{new Date(entry.at).toLocaleString()}</Table.Td>
                <Table.Td>{entry.pointer}</Table.Td>
                <Table.Td>{entry.from ?? '–'}</Table.Td>
                <Table.Td>{entry.to ?? '–'}</Table.Td>
                <Table.Td>
                  <Text size="xs" ff="monospace">
                    {entry.actor}
                  </Text>
                </Table.Td>
                <Table.Td>
                  {entry.reason ?? ''}
                  {entry.override && (
                    <Badge ml="xs" color="red.9" variant="outline">
                      override
                    </Badge>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </Stack>
  );
}
