import type { ArgumentsHost, ExceptionFilter } from '@nestjs/common';
import { Catch, Logger } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { replyJson } from '../json-reply';
import { httpErrorAnswerOf } from './http-error-mapping';

/**
 * The API's one exception filter: every error thrown by a controller, a pipe
 * or the body parser is answered through {@link httpErrorAnswerOf}, with a
 * JSON body that names its `code`. Server faults are logged with their stack;
 * the client never sees one.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpApi');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<ServerResponse>();
    const answer = httpErrorAnswerOf(exception);
    if (answer.serverFault) {
      this.logger.error(`${answer.status} ${answer.body.code}: ${exception instanceof Error ? exception.message : String(exception)}`, exception instanceof Error ? exception.stack : undefined);
    }
    if (response.headersSent) {
      // An event stream already answered 200: all that is left is to end it.
      if (!response.writableEnded) response.end();
      return;
    }
    replyJson(response, answer.status, answer.body, answer.headers);
  }
}
