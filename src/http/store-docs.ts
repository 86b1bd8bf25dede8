// OpenAPI documentation of the store's routes, served by Swagger UI.
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { StoreHttpModule } from './store-http.module.js';

/**
 * Builds the OpenAPI document of the store's routes (and only those) and
 * serves it with Swagger UI at `path` (the JSON at `<path>-json`). Call it
 * after creating the app and before `listen()`; returns the document.
 */
export function setupStoreDocs(app: INestApplication, path = 'docs'): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Agent store')
    .setDescription("Conversation storage for agents: sessions, messages, compactions, repairs, transcripts. Every route acts for the API key's tenant only.")
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: "An API key of StoreModule's http.apiKeys." })
    .build();
  const document = SwaggerModule.createDocument(app, config, { include: [StoreHttpModule] });
  SwaggerModule.setup(path, app, document);
  return document;
}
