import { Button, Group, NativeSelect, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import { ApiErrorAlert } from '../api/api-error-alert';
import { useFormValues } from '../api/use-form-values';
import { SEARCH_TYPES, type KnowledgeBaseFormValues } from './knowledge-logic';

export function KnowledgeBaseFields({
  initial,
  submitLabel,
  onSubmit,
  label,
}: {
  initial: KnowledgeBaseFormValues;
  submitLabel: string;
  onSubmit: (values: KnowledgeBaseFormValues) => Promise<unknown>;
  label: string;
}) {
  const { values, set, submit, busy, failure } = useFormValues(initial, onSubmit);
  return (
    <form onSubmit={submit} aria-label={label}>
      <Stack>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label="Name" required value={values.name} onChange={set('name')} />
          <NativeSelect
            label="Default search type"
            value={values.search_type}
            onChange={set('search_type')}
            data={SEARCH_TYPES.map((value) => ({ value, label: value }))}
          />
          <TextInput
            label="Default score threshold"
            description="0 to 1"
            value={values.search_score_threshold}
            onChange={set('search_score_threshold')}
          />
          <TextInput
            label="Default chunk limit"
            description="1 to 20"
            value={values.search_chunk_limit}
            onChange={set('search_chunk_limit')}
          />
        </SimpleGrid>
        <Textarea label="Description" autosize minRows={2} value={values.description} onChange={set('description')} />
        {failure !== null && <ApiErrorAlert error={failure} />}
        <Group>
          <Button type="submit" loading={busy}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
