import { ConsoleLogger } from '@nestjs/common';
import type { ServiceConfig } from './service-config';

/**
 * The logger of `serve` and `worker`: Nest's console logger, in JSON (one
 * object a line) with `LOG_FORMAT=json`; otherwise its text lines, coloured
 * only when standard output is a terminal and `NO_COLOR` is unset or empty
 * (https://no-color.org), so that a log written to a file or a pipe holds no
 * ANSI escape.
 */
export function serviceLogger(config: Pick<ServiceConfig, 'logFormat'>, env: NodeJS.ProcessEnv = process.env, stdout: { readonly isTTY?: boolean } = process.stdout): ConsoleLogger {
  if (config.logFormat === 'json') return new ConsoleLogger({ json: true, colors: false });
  return new ConsoleLogger({ colors: stdout.isTTY === true && (env.NO_COLOR ?? '') === '' });
}
