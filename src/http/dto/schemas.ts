// OpenAPI schemas of the free-form JSON fields. `type: Object` stands in for the
// design:type that tsx does not emit; Swagger drops it where a oneOf/anyOf is declared.

export const JSON_OBJECT = { type: 'object', additionalProperties: true } as const;

export const ANY_JSON = {
  type: Object,
  anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'object' }, { type: 'array', items: {} }],
  nullable: true,
  description: 'Any JSON value.',
};

export const MESSAGE_CONTENT = {
  type: Object,
  oneOf: [
    { type: 'string' },
    { type: 'array', items: { type: 'object', required: ['type'], properties: { type: { type: 'string', example: 'text' } }, additionalProperties: true } },
  ],
};
