// The one error handler: every failure, the framework's own included, answers the spec's error
// body {error: {code, message, details?}}. Unexpected errors are logged with their stack and
// answered with a fixed message, so no stack trace, SQL or personal data reaches a client.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, ServiceError } from '../../domain/errors.js';
import { isDatabaseUnavailable, isStatementTimeout } from '../../store/database.js';

const MALFORMED_MULTIPART = /^(Unexpected end of multipart data|Multipart: Boundary not found|\w+ terminated early due to unexpected end of multipart data)$/;

function fromFramework(err: FastifyError): ServiceError | null {
  if (err.validation) {
    const fields = err.validation.map((v) => ({
      path: `${err.validationContext ?? ''}${v.instancePath || ''}${v.keyword === 'required' ? `/${String((v.params as { missingProperty?: string }).missingProperty ?? '')}` : ''}`,
      message: v.message ?? 'is invalid',
    }));
    return new ServiceError(ErrorCode.ValidationFailed, { fields });
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ServiceError(ErrorCode.UnsupportedMediaType, undefined, 'The request content type is not supported.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new ServiceError(ErrorCode.PayloadTooLarge);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
    case 'FST_PROTO_VIOLATION':
      return new ServiceError(ErrorCode.ValidationFailed, undefined, 'The request body is malformed.');
    default:
      break;
  }
  // busboy's own errors carry no code: a body that is not the multipart it declares (no or wrong
  // boundary, bare LF line ends, cut off mid-part) is the client's fault, never a 500.
  if (MALFORMED_MULTIPART.test(err.message ?? '')) {
    return new ServiceError(ErrorCode.ValidationFailed, undefined, 'The multipart body is malformed or incomplete.');
  }
  if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON/i.test(err.message))) {
    return new ServiceError(ErrorCode.ValidationFailed, undefined, 'The request body is not valid JSON.');
  }
  if (err.statusCode === 413) return new ServiceError(ErrorCode.PayloadTooLarge);
  if (err.statusCode === 415) return new ServiceError(ErrorCode.UnsupportedMediaType);
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new ServiceError(err.statusCode === 404 ? ErrorCode.NotFound : ErrorCode.ValidationFailed, undefined, err.statusCode === 404 ? undefined : 'The request is invalid.');
  }
  return null;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    let se: ServiceError | null = err instanceof ServiceError ? err : fromFramework(err);
    if (!se) {
      if (isDatabaseUnavailable(err)) {
        se = new ServiceError(ErrorCode.ServiceUnavailable);
        request.log.error({ err: err.message }, 'database unavailable');
      } else if (isStatementTimeout(err)) {
        // PostgreSQL cancelled a statement of this request at DATABASE_REQUEST_STATEMENT_TIMEOUT_MS:
        // the service's 5xx body, never the driver's message or a stack; the route is logged, not the SQL.
        se = new ServiceError(ErrorCode.ServiceUnavailable);
        request.log.error({ route: request.routeOptions.url, method: request.method }, 'database statement time limit reached');
      } else if ((err as { code?: unknown }).code === 'BLOB_STORE_UNAVAILABLE') {
        se = new ServiceError(ErrorCode.ServiceUnavailable);
        request.log.error({ err: err.message }, 'object storage unavailable');
      } else {
        se = new ServiceError(ErrorCode.InternalError);
        request.log.error({ err }, 'unhandled error');
      }
    } else if (se.status >= 500) {
      request.log.error({ code: se.code }, 'request failed');
    }
    void reply.status(se.status).type('application/json; charset=utf-8').send(se.toBody());
  });

  app.setNotFoundHandler((_request, reply) => {
    const se = new ServiceError(ErrorCode.NotFound);
    void reply.status(404).type('application/json; charset=utf-8').send(se.toBody());
  });
}

/**
 * Errors Fastify raises before a request reaches a route (`frameworkErrors`): a path that is not
 * valid percent-encoding is 400 validation_failed; a path parameter over the router's limit is
 * 414 uri_too_long. No hook has run, so these answer before authentication; they reveal nothing.
 */
export function answerFrameworkError(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const se =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new ServiceError(ErrorCode.UriTooLong)
      : err.code === 'FST_ERR_BAD_URL'
        ? new ServiceError(ErrorCode.ValidationFailed, undefined, 'The request path is not valid.')
        : (fromFramework(err) ?? new ServiceError(ErrorCode.ValidationFailed, undefined, 'The request is invalid.'));
  void reply.status(se.status).type('application/json; charset=utf-8').send(se.toBody());
}

/**
 * Requests Node's HTTP parser rejects before Fastify sees them (bad request line, invalid header
 * characters, headers over the size limit, a client too slow to send its request): the same error
 * body, written on the socket, which is then closed.
 */
export function answerClientError(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const se =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new ServiceError(ErrorCode.RequestHeadersTooLarge)
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ServiceError(ErrorCode.RequestTimeout)
        : new ServiceError(ErrorCode.ValidationFailed, undefined, 'The request is not valid HTTP.');
  const body = JSON.stringify(se.toBody());
  // Node's own rule: answer only on a socket that has not answered yet; otherwise a parse error in
  // bytes that follow a finished response (a body left unread by an early answer) would append a
  // second response the client cannot parse.
  if (socket.writable && socket.bytesWritten === 0) {
    socket.write(`HTTP/1.1 ${se.status} ${http.STATUS_CODES[se.status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}
