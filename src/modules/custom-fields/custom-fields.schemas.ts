import { type Static, Type } from 'typebox';
import { Id, PagingQuery, Timestamp, UpdatedSinceQuery } from '../../shared/schemas.js';

export const CUSTOM_FIELD_ENTITIES = ['project', 'task', 'contact', 'company'] as const;
export type CustomFieldEntity = (typeof CUSTOM_FIELD_ENTITIES)[number];
export const CUSTOM_FIELD_TYPES = ['text', 'number', 'date', 'boolean', 'select'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

export const CustomFieldEntity = Type.Enum(CUSTOM_FIELD_ENTITIES, {
  description: 'The kind of record the field applies to',
});
export const CustomFieldType = Type.Enum(CUSTOM_FIELD_TYPES);

export const CustomFieldKey = Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$' });

export const CustomFieldDefinition = Type.Object(
  {
    id: Id,
    entity: CustomFieldEntity,
    key: Type.String({ description: 'Name of the value in the `custom_fields` object of a record' }),
    label: Type.String(),
    type: CustomFieldType,
    options: Type.Array(Type.String(), {
      description: 'Allowed values of a `select` field; empty otherwise',
    }),
    required: Type.Boolean(),
    position: Type.Integer(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'CustomFieldDefinition' },
);
export type CustomFieldDefinition = Static<typeof CustomFieldDefinition>;

export const CustomFieldValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
export type CustomFieldValue = string | number | boolean;

/**
 * Values of a record's custom fields by key. Text and select are strings, number a number,
 * date a `YYYY-MM-DD` string, boolean a boolean.
 */
export const CustomFieldValues = Type.Record(Type.String(), CustomFieldValue, {
  description: 'Custom field values by key (see GET /custom-fields)',
});

/** In a create or update body: values are checked against the definitions, `null` clears one. */
export const CustomFieldValuesInput = Type.Record(
  Type.String(),
  Type.Union([
    Type.String({ maxLength: 10_000 }),
    Type.Number({ minimum: -1e15, maximum: 1e15, description: 'Numbers: at most 10^15 either way' }),
    Type.Boolean(),
    Type.Null(),
  ]),
  {
    description:
      'Custom field values by key, checked against the definitions of GET /custom-fields; `null` clears a value. Keys left out keep their value.',
  },
);

export const CustomFieldListQuery = Type.Object(
  {
    ...PagingQuery,
    ...UpdatedSinceQuery,
    entity: Type.Optional(CustomFieldEntity),
  },
  { additionalProperties: false },
);
export type CustomFieldListQuery = Static<typeof CustomFieldListQuery>;
