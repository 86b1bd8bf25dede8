// What the store's own tests of the SDK's run() share: the stubs' FakeModel keeping the requests
// it was given (to see what history a turn sent), and items as their texts.
import type { AgentInputItem, ModelRequest, ModelResponse } from '@openai/agents-core';
import { FakeModel } from './sdk-stubs.js';

export class RecordingModel extends FakeModel {
  readonly requests: ModelRequest[] = [];

  override async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    return super.getResponse(request);
  }
}

/** Each item's text, or its type when it has no text. */
export const texts = (items: AgentInputItem[]) => items.map((item) => ('content' in item && typeof item.content === 'string' ? item.content : item.type));
