import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useState } from 'react';
import { ApiErrorAlert } from '../api/api-error-alert';

/** A delete that asks first, in a modal naming what goes; the API's error stays in the modal. */
export function DeleteButton({ what, onDelete, size = 'xs' }: { what: string; onDelete: () => Promise<void>; size?: string }) {
  const [opened, { open, close }] = useDisclosure(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const confirm = async () => {
    setBusy(true);
    setFailure(null);
    try {
      await onDelete();
      close();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button color="red.9" variant="outline" size={size} onClick={open} aria-label={`Delete ${what}`}>
        Delete
      </Button>
      <Modal opened={opened} onClose={close} title={`Delete ${what}?`}>
        <Stack>
          <Text size="sm">This cannot be undone.</Text>
          {failure !== null && <ApiErrorAlert error={failure} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button color="red.9" loading={busy} onClick={() => void confirm()}>
              Delete
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
