// GET /viewer and /viewer/<asset>: the session viewer's static files (the `viewer` option).
import { readFileSync } from 'node:fs';
import { Controller, Get, NotFoundException, Param, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { storeErrors } from './store-exception.filter.js';

/**
 * The only files served, by name: no part of a request's path reaches the
 * filesystem. The folder is two levels above both src/http/ and dist/http/.
 */
const ASSET_TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'viewer.css': 'text/css; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'api.js': 'text/javascript; charset=utf-8',
  'dom.js': 'text/javascript; charset=utf-8',
  'sessions.js': 'text/javascript; charset=utf-8',
  'session.js': 'text/javascript; charset=utf-8',
  'tree.js': 'text/javascript; charset=utf-8',
  'messages.js': 'text/javascript; charset=utf-8',
  'panes.js': 'text/javascript; charset=utf-8',
  'origins.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};
const VIEWER_ROOT = new URL('../../viewer/', import.meta.url);

// The page renders stored messages, which are hostile input: nothing but its own files may run, load or be framed.
const HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

interface Asset {
  type: string;
  body: Buffer;
}

/** Unauthenticated and unthrottled, like a Swagger UI: static code, no data. Read once, at startup, so a missing file fails the boot. */
@Controller('viewer')
@UseFilters(storeErrors)
@ApiExcludeController()
export class ViewerController {
  private readonly assets = new Map<string, Asset>(
    Object.entries(ASSET_TYPES).map(([name, type]) => [name, { type, body: readFileSync(new URL(name, VIEWER_ROOT)) }]),
  );

  @Get()
  index(@Req() request: IncomingMessage, @Res() response: ServerResponse): void {
    // The page's asset URLs are relative: they need the trailing slash. Relative, so a proxy's mount path is kept;
    // 302, as browsers keep a 301 for good.
    if (!(request.url ?? '').split('?')[0].endsWith('/')) {
      response.writeHead(302, { Location: 'viewer/' }).end();
      return;
    }
    this.send(response, 'index.html');
  }

  @Get(':asset')
  asset(@Param('asset') name: string, @Res() response: ServerResponse): void {
    this.send(response, name);
  }

  private send(response: ServerResponse, name: string): void {
    const asset = Object.hasOwn(ASSET_TYPES, name) ? this.assets.get(name) : undefined;
    if (!asset) throw new NotFoundException(`the viewer has no file ${JSON.stringify(name)}`);
    response.writeHead(200, { ...HEADERS, 'Content-Type': asset.type, 'Content-Length': asset.body.length }).end(asset.body);
  }
}
