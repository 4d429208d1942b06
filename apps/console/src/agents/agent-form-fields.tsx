import { Button, Group, NativeSelect, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import { ApiErrorAlert } from '../api/api-error-alert';
import { useFormValues } from '../api/use-form-values';
import { REASONING_EFFORTS, TOOL_CHOICES, type AgentFormValues } from './agent-form';

/**
 * The agent's fields as a labelled form; `onSubmit` calls the API, and its error (a 422 naming
 * the field) is shown under the form as the catalog worded it.
 */
export function AgentFormFields({
  initial,
  submitLabel,
  onSubmit,
  label,
}: {
  initial: AgentFormValues;
  submitLabel: string;
  onSubmit: (values: AgentFormValues) => Promise<unknown>;
  label: string;
}) {
  const { values, set, submit, busy, failure } = useFormValues(initial, onSubmit);
  return (
    <form onSubmit={submit} aria-label={label}>
      <Stack>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label="Name" required value={values.name} onChange={set('name')} />
          <TextInput label="Description" value={values.description} onChange={set('description')} />
          <TextInput
            label="Model"
            description="A catalog model whose type is llm"
            required
            value={values.llm_model}
            onChange={set('llm_model')}
          />
          <TextInput
            label="Model type"
            description="The catalog's model_type"
            required
            value={values.model_type}
            onChange={set('model_type')}
          />
          <TextInput
            label="Temperature"
            description="0 to 2; empty for the model's default"
            value={values.temperature}
            onChange={set('temperature')}
          />
          <TextInput label="Max tokens" description="Of one answer" value={values.max_token} onChange={set('max_token')} />
          <NativeSelect
            label="Tool choice"
            value={values.tool_choice}
            onChange={set('tool_choice')}
            data={[{ value: '', label: 'Default' }, ...TOOL_CHOICES.map((value) => ({ value, label: value }))]}
          />
          <TextInput label="Max tool calls" description="Per run" value={values.max_tool_calls} onChange={set('max_tool_calls')} />
          <NativeSelect
            label="Reasoning effort"
            value={values.reasoning_effort}
            onChange={set('reasoning_effort')}
            data={[{ value: '', label: 'Default' }, ...REASONING_EFFORTS.map((value) => ({ value, label: value }))]}
          />
        </SimpleGrid>
        <Textarea
          label="Instructions"
          description="The system prompt"
          autosize
          minRows={3}
          value={values.instruction_prompt}
          onChange={set('instruction_prompt')}
        />
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
