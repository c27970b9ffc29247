const STORAGE_KEY = 'agent-ledger.apiKey';

/**
 * Where the signed-in API key lives: the tab's `sessionStorage`, gone when
 * the tab closes, never in `localStorage`, a cookie or a URL.
 */
export const keyStorage = {
  read(): string | null {
    return sessionStorage.getItem(STORAGE_KEY);
  },
  write(key: string): void {
    sessionStorage.setItem(STORAGE_KEY, key);
  },
  clear(): void {
    sessionStorage.removeItem(STORAGE_KEY);
  },
};
