// How the store's routes answer errors: StoreErrors by kind, HTTP errors as they are, anything else as a bare 500.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { Catch, HttpException, HttpStatus, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { redactText } from '../values/redact.js';
import { StoreBusyError, StoreConflictError, StoreError, StoreNotFoundError, StoreUnavailableError, StoreValidationError } from '../store.errors.js';

/**
 * What a StoreError converted from a database error (toStoreError) answers:
 * its message is Prisma's or the driver's, which names tables, columns and
 * constraints. The stores' own errors have no such cause, and keep theirs.
 */
const DATABASE_REFUSALS: Record<number, string> = {
  [HttpStatus.BAD_REQUEST]: 'the database refused the input',
  [HttpStatus.NOT_FOUND]: 'a record the request needs does not exist',
  [HttpStatus.CONFLICT]: 'the write conflicts with stored data',
};

/**
 * Bound to the store's controllers and middleware only (`@UseFilters`), so the
 * app's own routes keep the app's error handling. It answers in Nest's shape,
 * `{ statusCode, error, message }`, and never sends a stack.
 */
@Catch()
export class StoreExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('AgentStoreHttp');

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<IncomingMessage>();
    const response = host.switchToHttp().getResponse<ServerResponse>();
    const { statusCode, body } = this.answerTo(exception, request);
    if (response.headersSent) {
      // A stream failed half-way: cut the connection so the client cannot take the part for the whole.
      response.destroy();
      return;
    }
    response.statusCode = statusCode;
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.end(JSON.stringify(body));
  }

  private answerTo(exception: unknown, request: IncomingMessage): { statusCode: number; body: object } {
    if (exception instanceof HttpException) {
      // As Nest answers it: an object response is the body (Nest's own exceptions make it { statusCode, message, error }).
      const answer = exception.getResponse();
      return { statusCode: exception.getStatus(), body: typeof answer === 'object' ? answer : answerOf(exception.getStatus(), answer).body };
    }
    if (exception instanceof StoreValidationError) return this.storeAnswer(HttpStatus.BAD_REQUEST, exception, request);
    if (exception instanceof StoreNotFoundError) return this.storeAnswer(HttpStatus.NOT_FOUND, exception, request);
    if (exception instanceof StoreConflictError) return this.storeAnswer(HttpStatus.CONFLICT, exception, request);
    if (exception instanceof StoreUnavailableError || exception instanceof StoreBusyError) {
      // Their messages may name the database's host: they stay in the log.
      this.logger.warn(`${request.method} ${request.url}: ${exception.name}: ${exception.message}`);
      const reason = exception instanceof StoreBusyError ? 'the database is busy' : 'the database is unavailable';
      return answerOf(HttpStatus.SERVICE_UNAVAILABLE, `${reason}; try again later`);
    }
    // Not a StoreError: nothing redacted its text yet.
    this.logger.error(`${request.method} ${request.url} failed`, redactText((exception as Error)?.stack ?? String(exception)));
    return answerOf(HttpStatus.INTERNAL_SERVER_ERROR, 'Internal server error');
  }

  private storeAnswer(statusCode: number, exception: StoreError, request: IncomingMessage): { statusCode: number; body: object } {
    if (exception.cause === undefined || exception.cause instanceof StoreError) return answerOf(statusCode, exception.message);
    this.logger.warn(`${request.method} ${request.url}: ${exception.name}: ${exception.message}`);
    return answerOf(statusCode, DATABASE_REFUSALS[statusCode]!);
  }
}

const answerOf = (statusCode: number, message: string) => ({ statusCode, body: { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message } });

/** One instance for controllers and middleware alike: Nest applies a filter to middleware only as an instance. */
export const storeErrors = new StoreExceptionFilter();
