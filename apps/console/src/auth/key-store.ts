/**
 * The workspace API key the user pasted: in this tab's sessionStorage only (gone when the tab
 * closes; never in a URL, localStorage, a cookie or a log line).
 */
const STORAGE_KEY = 'waggle.console.api-key';

export interface KeyStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export function readKey(storage: KeyStorage): string | null {
  const key = storage.getItem(STORAGE_KEY)?.trim();
  return key ? key : null;
}

export function saveKey(storage: KeyStorage, key: string): void {
  storage.setItem(STORAGE_KEY, key.trim());
}

export function clearKey(storage: KeyStorage): void {
  storage.removeItem(STORAGE_KEY);
}
