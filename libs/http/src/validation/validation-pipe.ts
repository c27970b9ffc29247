import type { ArgumentMetadata } from '@nestjs/common';
import { ValidationPipe } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { withActorFieldIssues } from './actor-fields';
import { bodyFieldIssues, rawJsonFieldsOf } from './raw-json';
import { RequestValidationError, requestValidationExceptionFactory } from './request-validation.error';

/**
 * The API's one `ValidationPipe`: DTOs are checked with class-validator,
 * unknown fields are refused (not stripped), bodies and queries are turned
 * into DTO instances, each field reports its first broken rule (the type
 * first), and a refusal is a {@link RequestValidationError}. A body that is
 * not a JSON object (an array, a string) is refused as a whole.
 *
 * Before Nest's pipe sees a body (its steps are recursive, and it drops
 * prototype keys silently), the body is checked without recursion: nested
 * deeper than `MAX_MESSAGE_DEPTH` (`maxDepth`), a `__proto__`, `constructor` or
 * `prototype` key (`unknownField`), a raw JSON field that breaks the bus's
 * rule of a JSON value (`isJsonValue`: a number that is not finite). The DTO's `@RawJson()` fields (a run's `input`) are
 * then kept out of the pipe's reach and set on the DTO as they were sent.
 *
 * A request without a body (or with an empty one) is checked as `{}`: a
 * route whose body is optional takes it, one whose body is required refuses
 * it naming the body first (`body`, `isPresent`), then its missing fields.
 *
 * A body field that would name who acts (`requestedBy`, `decidedBy`...) is
 * refused as any unknown field, with a message saying that who acts is the
 * authenticated caller (`actor-fields.ts`).
 */
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      stopAtFirstError: true,
      transform: true,
      validationError: { target: false, value: false },
      exceptionFactory: requestValidationExceptionFactory,
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    try {
      return await this.transformChecked(value, metadata);
    } catch (error) {
      if (metadata.type !== 'body' || !(error instanceof RequestValidationError)) throw error;
      throw new RequestValidationError(withActorFieldIssues(error.issues, declaresField(metadata.metatype, 'reason')));
    }
  }

  private async transformChecked(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && value !== undefined && value !== null && (typeof value !== 'object' || Array.isArray(value))) {
      throw new RequestValidationError([{ field: 'body', rule: 'isObject', message: 'body must be a JSON object' }]);
    }
    if (metadata.type === 'body' && metadata.data === undefined && value === undefined && metadata.metatype !== undefined) {
      return this.absentBody(metadata);
    }
    if (metadata.type !== 'body' || value === undefined || value === null || metadata.metatype === undefined) {
      return super.transform(value, metadata);
    }
    const body = value as Record<string, unknown>;
    const rawFields = rawJsonFieldsOf(metadata.metatype);
    const early = bodyFieldIssues(body, rawFields);
    const refusedKeys = new Set(early.map((issue) => issue.key));
    // What the pipe validates: the body without the refused fields, the raw JSON fields as stand-ins (present, null).
    const standIn: Record<string, unknown> = {};
    const kept = new Map<string, unknown>();
    for (const key of Object.keys(body)) {
      if (refusedKeys.has(key)) continue;
      if (rawFields.includes(key)) {
        kept.set(key, body[key]);
        standIn[key] = null;
      } else {
        standIn[key] = body[key];
      }
    }
    const issues = early.map(({ field, rule, message }) => ({ field, rule, message }));
    let dto: Record<string, unknown>;
    try {
      dto = (await super.transform(standIn, metadata)) as Record<string, unknown>;
    } catch (error) {
      if (!(error instanceof RequestValidationError) || issues.length === 0) throw error;
      // A refused field left out of the stand-in must not also be reported missing.
      const others = error.issues.filter((issue) => ![...refusedKeys].some((key) => issue.field === key || issue.field.startsWith(`${key}.`)));
      throw new RequestValidationError([...others, ...issues]);
    }
    if (issues.length > 0) throw new RequestValidationError(issues);
    for (const [key, raw] of kept) dto[key] = raw;
    return dto;
  }

  /** No body: the DTO of `{}`, or, when the DTO requires a field, a refusal naming the body first. */
  private async absentBody(metadata: ArgumentMetadata): Promise<unknown> {
    try {
      return await super.transform(undefined, metadata);
    } catch (error) {
      if (!(error instanceof RequestValidationError)) throw error;
      const fields = [...new Set(error.issues.map((issue) => issue.field))].join(', ');
      throw new RequestValidationError([{ field: 'body', rule: 'isPresent', message: `body is required: a JSON object with ${fields} (the request has no body)` }, ...error.issues]);
    }
  }
}

/** Whether the DTO class declares `field` (has a validation rule on it). */
function declaresField(metatype: unknown, field: string): boolean {
  if (typeof metatype !== 'function') return false;
  return getMetadataStorage()
    .getTargetValidationMetadatas(metatype, '', true, false)
    .some((rule) => rule.propertyName === field);
}

/** Builds the API's {@link ApiValidationPipe}. */
export function createApiValidationPipe(): ApiValidationPipe {
  return new ApiValidationPipe();
}
