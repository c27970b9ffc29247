/**
 * Runs `check` (the input's validation, the store being open), then `call`
 * with what it gave. A refusal thrown by `check` is returned as a rejected
 * promise: the port's promise-returning methods never throw synchronously,
 * so a caller's `.catch` sees every refusal.
 */
export function checkedCall<C, T>(check: () => C, call: (checked: C) => Promise<T>): Promise<T> {
  let checked: C;
  try {
    checked = check();
  } catch (error) {
    return Promise.reject(error);
  }
  return call(checked);
}
