// Request bodies of the store's routes: read under the size limit, depth-checked, then parsed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  BadRequestException,
  Inject,
  Injectable,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
  UseFilters,
  type NestMiddleware,
} from '@nestjs/common';
import { textNestsDeeperThan, valueNestsDeeperThan } from './json-depth.js';
import { storeErrors } from './store-exception.filter.js';
import { STORE_HTTP_OPTIONS, type ResolvedHttpOptions } from './store-http.options.js';

/** `_body` is body-parser's mark of a request whose body it has read. */
type BodyRequest = IncomingMessage & { body?: unknown; _body?: boolean };
type Kind = 'json' | 'ndjson';

/**
 * JSON bodies become `request.body`; `application/x-ndjson` bodies (imports)
 * become its text. When a parser of the app has read the body already (Nest's
 * JSON parser runs before any module's middleware), its result is kept and
 * still depth-checked; its own size limit has applied.
 */
@Injectable()
@UseFilters(storeErrors)
export class StoreBodyMiddleware implements NestMiddleware<BodyRequest> {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  constructor(@Inject(STORE_HTTP_OPTIONS) private readonly http: ResolvedHttpOptions) {}

  async use(request: BodyRequest, response: ServerResponse, next: () => void): Promise<void> {
    const kind = kindOf(request.headers['content-type']);
    if (!hasBody(request)) {
      // An empty import is JSONL all the same: the store says what it lacks, rather than a 415.
      if (kind === 'ndjson') request.body = '';
      return next();
    }
    // Refused whoever reads the body: read here, gzip bytes would be taken for text.
    if (!isIdentity(request.headers['content-encoding'])) {
      response.setHeader('Accept-Encoding', 'identity');
      throw new UnsupportedMediaTypeException('send the body uncompressed: the store takes no Content-Encoding other than "identity"');
    }
    if (!kind) {
      throw new UnsupportedMediaTypeException('send JSON as "Content-Type: application/json" (UTF-8), or a session to import as "application/x-ndjson"');
    }
    // The body is not read past its announced length: Node drops the rest once the response is sent.
    if (Number(request.headers['content-length']) > this.http.maxBodyBytes) throw this.tooLarge();
    if (request._body || request.readableEnded) {
      if (kind === 'json' && valueNestsDeeperThan(request.body, this.http.maxJsonDepth)) throw this.tooDeep();
      return next();
    }
    const text = this.decode(await readBody(request, this.http.maxBodyBytes, () => this.tooLarge()));
    request.body = kind === 'json' ? this.parse(text) : text;
    next();
  }

  private parse(text: string): unknown {
    // Checked on the text, before anything walks the parsed value.
    if (textNestsDeeperThan(text, this.http.maxJsonDepth)) throw this.tooDeep();
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new BadRequestException(`the body is not valid JSON: ${(error as Error).message}`);
    }
  }

  private decode(bytes: Buffer): string {
    try {
      return this.decoder.decode(bytes);
    } catch {
      throw new BadRequestException('the body is not valid UTF-8');
    }
  }

  private tooLarge() {
    return new PayloadTooLargeException(`the body is larger than ${this.http.maxBodyBytes} bytes`);
  }

  private tooDeep() {
    return new BadRequestException(`the body nests arrays and objects deeper than ${this.http.maxJsonDepth} levels`);
  }
}

const hasBody = (request: IncomingMessage) => request.headers['transfer-encoding'] !== undefined || (request.headers['content-length'] ?? '0') !== '0';

const isIdentity = (contentEncoding: string | undefined) => contentEncoding === undefined || contentEncoding.trim().toLowerCase() === 'identity';

/** What the body is, by its Content-Type; undefined for a type or charset the store does not read. */
function kindOf(contentType: string | undefined): Kind | undefined {
  const [mediaType = '', ...parameters] = (contentType ?? '')
    .toLowerCase()
    .split(';')
    .map((part) => part.trim());
  const charset = parameters
    .find((parameter) => parameter.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  if (charset !== undefined && charset !== 'utf-8') return undefined;
  return mediaType === 'application/json' || mediaType.endsWith('+json') ? 'json' : mediaType === 'application/x-ndjson' ? 'ndjson' : undefined;
}

/**
 * Reads the body, failing as soon as it passes `limit` bytes. The rest is
 * still read and dropped, as body-parser does, so the client gets the error
 * instead of a connection reset while it is still sending.
 */
function readBody(request: IncomingMessage, limit: number, tooLarge: () => Error): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const fail = (error: Error) => {
      failed = true;
      chunks.length = 0;
      reject(error);
    };
    request.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) fail(tooLarge());
      else chunks.push(chunk);
    });
    request.once('end', () => failed || resolve(Buffer.concat(chunks)));
    request.once('error', (error) => failed || fail(new BadRequestException(`the body could not be read: ${error.message}`)));
    request.once('close', () => failed || request.complete || fail(new BadRequestException('the body ended early')));
  });
}
