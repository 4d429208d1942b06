import { Alert, Anchor, Box, Button, Code, Group, List, Stack, Text, Textarea, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useRef, useState, type FormEvent } from 'react';
import { ApiErrorAlert } from '../api/api-error-alert';
import { useSession } from '../auth/session';
import { placeErrors, readApplyFile, type PlacedError } from './apply-errors';
import { applyDefinitions, ApplyRefusal, type DeploymentKind } from './prompts-api';

const EXAMPLE = `prompts:
  - deployment: support-reply
    variants:
      - name: default
        model: gpt-4o-mini
        messages:
          - { role: system, content: 'Answer in one short sentence.' }
          - { role: user, content: '{{ question }}' }
`;

/** The text survives leaving the screen and coming back in the same tab. */
const DRAFT_KEY = 'waggle.console.apply-draft';

interface Applied {
  kind: DeploymentKind;
  deployment: string;
  variants: Array<{ name: string; version: number | null }>;
}

/**
 * Apply from pasted YAML (`prompts:` and/or `workflows:`, as the CLI's `apply -f` reads it): the file
 * is sent to `POST /v1/private/<kind>/apply`; a refusal's field paths are placed on the lines they
 * name, beside the file, and the text stays as it was typed.
 */
export function ApplyPage() {
  const { key } = useSession();
  const queryClient = useQueryClient();
  const textarea = useRef<HTMLTextAreaElement>(null);
  const [text, setText] = useState(() => sessionStorage.getItem(DRAFT_KEY) ?? '');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [errors, setErrors] = useState<PlacedError[]>([]);
  /** The text the errors were placed on (they are hidden once it changes). */
  const [checkedText, setCheckedText] = useState('');
  const [applied, setApplied] = useState<Applied[] | null>(null);

  const edit = (value: string) => {
    setText(value);
    sessionStorage.setItem(DRAFT_KEY, value);
  };

  const apply = async (event: FormEvent) => {
    event.preventDefault();
    setFailure(null);
    setErrors([]);
    setApplied(null);
    setCheckedText(text);
    const read = readApplyFile(text);
    if ('errors' in read) {
      setErrors(read.errors);
      return;
    }
    setBusy(true);
    try {
      const done: Applied[] = [];
      for (const kind of ['prompts', 'workflows'] as const) {
        const list = read.bodies[kind];
        if (list === undefined) continue;
        const answer = (await applyDefinitions(key ?? '', kind, list)) as Array<Omit<Applied, 'kind'>>;
        done.push(...answer.map((deployment) => ({ ...deployment, kind })));
      }
      setApplied(done);
      await queryClient.invalidateQueries({ queryKey: ['deployments'] });
      await queryClient.invalidateQueries({ queryKey: ['versions'] });
    } catch (error) {
      if (error instanceof ApplyRefusal) {
        setFailure(error.error);
        setErrors(placeErrors(text, error.details));
      } else setFailure(error);
    } finally {
      setBusy(false);
    }
  };

  /** Selects a line of the file in the text area, so the keyboard lands where the error is. */
  const goToLine = (line: number) => {
    const area = textarea.current;
    if (!area) return;
    const lines = area.value.split('\n');
    const start = lines.slice(0, line - 1).reduce((sum, current) => sum + current.length + 1, 0);
    area.focus();
    area.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
  };

  const shownErrors = checkedText === text ? errors : [];
  return (
    <Stack>
      <Title order={1}>Apply YAML</Title>
      <Text size="sm">
        Paste a definition file with a <Code>prompts:</Code> or a <Code>workflows:</Code> list, as <Code>waggle apply -f</Code> reads it.
        Applying the same file twice changes nothing; a changed variant gets a new version.{' '}
        <Anchor component={Link} to="/prompts">
          Back to the deployments
        </Anchor>
      </Text>
      <form onSubmit={(event) => void apply(event)} aria-label="Apply a definition file">
        <Stack>
          <Textarea
            ref={textarea}
            label="Definition file (YAML)"
            placeholder={EXAMPLE}
            autosize
            minRows={12}
            maxRows={30}
            value={text}
            onChange={(event) => edit(event.currentTarget.value)}
            spellCheck={false}
            styles={{
              input: {
                fontFamily: 'monospace',
                ...(shownErrors.length > 0 && { borderColor: 'var(--mantine-color-red-9)', borderWidth: 2 }),
              },
            }}
            aria-invalid={shownErrors.length > 0}
            aria-describedby={shownErrors.length > 0 ? 'apply-problem-count apply-errors' : undefined}
          />
          {shownErrors.length > 0 && (
            <Text id="apply-problem-count" size="sm" c="red.9" fw={600}>
              {shownErrors.length} problem(s): see them on their lines below.
            </Text>
          )}
          <Group>
            <Button type="submit" loading={busy} disabled={text.trim() === ''}>
              Apply
            </Button>
          </Group>
        </Stack>
      </form>
      {failure !== null && <ApiErrorAlert error={failure} />}
      {shownErrors.length > 0 && <AnnotatedFile text={checkedText} errors={shownErrors} onGoToLine={goToLine} />}
      {applied !== null && (
        <Alert color="teal" title="Applied" role="status" data-testid="apply-success">
          <List size="sm">
            {applied.map((deployment) => (
              <List.Item key={`${deployment.kind}/${deployment.deployment}`}>
                {deployment.deployment}:{' '}
                {deployment.variants.map((variant, index) => (
                  <span key={variant.name}>
                    {index > 0 && ', '}
                    <Anchor
                      renderRoot={(props) => (
                        <Link
                          {...props}
                          to="/prompts/$kind/$deployment/$variant"
                          params={{ kind: deployment.kind, deployment: deployment.deployment, variant: variant.name }}
                        />
                      )}
                    >
                      {variant.name}
                    </Anchor>{' '}
                    version {variant.version ?? 'none'}
                  </span>
                ))}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
    </Stack>
  );
}

/** The file as it was applied, numbered, with each problem printed under the line it points at. */
function AnnotatedFile({ text, errors, onGoToLine }: { text: string; errors: PlacedError[]; onGoToLine: (line: number) => void }) {
  const lines = text.split('\n');
  const byLine = new Map<number, PlacedError[]>();
  for (const error of errors) {
    const line = error.line ?? 1;
    byLine.set(line, [...(byLine.get(line) ?? []), error]);
  }
  return (
    <Box id="apply-errors" component="section" aria-label="The file with its problems">
      <Title order={2} size="h4" mb="xs">
        Problems, on their lines
      </Title>
      <Box
        component="ol"
        tabIndex={0}
        aria-label="The applied file, line by line"
        style={{
          listStyle: 'none',
          padding: 0,
          margin: 0,
          overflowX: 'auto',
          border: '1px solid var(--mantine-color-gray-4)',
          borderRadius: 4,
        }}
      >
        {lines.map((line, index) => {
          const number = index + 1;
          const here = byLine.get(number);
          return (
            <li key={number} data-testid={here ? `apply-error-line-${number}` : undefined}>
              <Box style={{ display: 'flex', fontFamily: 'monospace', fontSize: 13, whiteSpace: 'pre' }} bg={here ? 'red.0' : undefined}>
                <Text span c="gray.8" ff="monospace" size="sm" style={{ minWidth: '3.5em', textAlign: 'right', paddingRight: 8 }}>
                  {number}
                </Text>
                <Text span ff="monospace" size="sm">
                  {line === '' ? ' ' : line}
                </Text>
              </Box>
              {here?.map((error, position) => (
                <Group key={position} gap="xs" pl="3.5em" py={4} bg="red.0" wrap="nowrap" data-testid="apply-error">
                  <Text size="sm" c="red.9" fw={600} style={{ whiteSpace: 'normal' }}>
                    {error.field !== null && <Code>{error.field}</Code>} {error.messages.join('; ')}
                  </Text>
                  <Button size="compact-xs" variant="default" onClick={() => onGoToLine(number)}>
                    Go to line {number}
                  </Button>
                </Group>
              ))}
            </li>
          );
        })}
      </Box>
    </Box>
  );
}
