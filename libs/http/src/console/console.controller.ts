import type { IncomingMessage, ServerResponse } from 'node:http';
import { All, Controller, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators';
import { ConsoleFiles } from './console-files';
import { ConsoleFileNotFoundError, ConsoleMethodNotAllowedError } from './console.errors';
import { CONSOLE_URL_PREFIX, consoleRelativePath } from './console-path';
import { CONSOLE_SECURITY_HEADERS } from './console-security-headers';

/** The methods the console's routes answer. */
const READ_METHODS: readonly string[] = ['GET', 'HEAD'];

type ConsoleRequest = IncomingMessage & { readonly originalUrl?: string };

/**
 * The built console (a static single-page app) under `/console/`, and `/`
 * sent to it. Public: the files carry no data, the app asks for a key and
 * calls the API with it. Every answer (file, redirect or error) carries
 * {@link CONSOLE_SECURITY_HEADERS}. Not in the OpenAPI document.
 */
@ApiExcludeController()
@Public()
@Controller()
export class ConsoleController {
  constructor(private readonly files: ConsoleFiles) {}

  /** `GET /`: 302 to `/console/`. */
  @All()
  root(@Req() request: ConsoleRequest, @Res() response: ServerResponse): void {
    secure(response, request);
    redirect(response, 302, CONSOLE_URL_PREFIX);
  }

  /** `GET /console`: 301 to `/console/`; `GET /console/<path>`: the file (`/console/`: `index.html`). */
  @All(['console', 'console/*path'])
  async file(@Req() request: ConsoleRequest, @Res() response: ServerResponse): Promise<void> {
    secure(response, request);
    const url = request.originalUrl ?? request.url ?? '/';
    const queryAt = url.indexOf('?');
    const rawPath = queryAt < 0 ? url : url.slice(0, queryAt);
    if (rawPath === CONSOLE_URL_PREFIX.slice(0, -1)) {
      redirect(response, 301, `${CONSOLE_URL_PREFIX}${queryAt < 0 ? '' : url.slice(queryAt)}`);
      return;
    }
    const relative = consoleRelativePath(rawPath);
    if (relative === null) throw new ConsoleFileNotFoundError();
    const file = await this.files.read(relative);
    response.statusCode = 200;
    response.setHeader('Content-Type', file.contentType);
    response.setHeader('Content-Length', file.body.length);
    response.setHeader('Cache-Control', file.cacheControl);
    // Node sends no body to a HEAD request.
    response.end(file.body);
  }
}

/**
 * Sets the security headers (before anything can fail, so that error answers
 * carry them too) and refuses other methods than GET and HEAD.
 * @throws ConsoleMethodNotAllowedError
 */
function secure(response: ServerResponse, request: IncomingMessage): void {
  for (const [name, value] of Object.entries(CONSOLE_SECURITY_HEADERS)) response.setHeader(name, value);
  const method = request.method ?? 'GET';
  if (!READ_METHODS.includes(method)) throw new ConsoleMethodNotAllowedError(method);
}

function redirect(response: ServerResponse, status: 301 | 302, location: string): void {
  response.statusCode = status;
  response.setHeader('Location', location);
  response.setHeader('Cache-Control', 'no-cache');
  response.setHeader('Content-Length', 0);
  response.end();
}
