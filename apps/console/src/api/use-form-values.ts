import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';

/**
 * A form of text fields that submits to the API: its values, a change handler per field, and the
 * submit's state (busy, and the API's error to show as the catalog worded it).
 */
export function useFormValues<T extends { [K in keyof T]: string }>(initial: T, onSubmit: (values: T) => Promise<unknown>) {
  const [values, setValues] = useState(initial);
  const submission = useMutation({ mutationFn: onSubmit });
  return {
    values,
    set: (field: keyof T) => (event: { currentTarget: { value: string } }) => {
      const value = event.currentTarget.value;
      setValues((current) => ({ ...current, [field]: value }));
    },
    submit: (event: FormEvent) => {
      event.preventDefault();
      submission.mutate(values);
    },
    busy: submission.isPending,
    failure: submission.isError ? (submission.error as unknown) : null,
  };
}
