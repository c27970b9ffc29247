/** Jest globalSetup of the `browser` project: the built service and console (built once, outside CI, when missing or stale). */
import { ensureBuilt } from './built-service';

export default function globalSetup(): void {
  ensureBuilt();
}
