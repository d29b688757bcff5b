import { Type } from 'typebox';
import type { ImportSection } from '../../import/context.js';
import { validationFailed } from '../../shared/errors.js';
import { insertDefinition } from './custom-fields.repository.js';
import { CustomFieldEntity, CustomFieldKey, CustomFieldType } from './custom-fields.schemas.js';

const CustomFieldItem = Type.Object(
  {
    entity: CustomFieldEntity,
    key: CustomFieldKey,
    label: Type.String({ minLength: 1 }),
    type: CustomFieldType,
    options: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, uniqueItems: true })),
    required: Type.Optional(Type.Boolean()),
    position: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);

interface Item {
  entity: string;
  key: string;
  label: string;
  type: string;
  options?: string[];
  required?: boolean;
  position?: number;
}

export const customFieldsSection: ImportSection = {
  key: 'custom_fields',
  item: CustomFieldItem,
  description:
    'Custom field definitions: `entity` (project, task, contact, company), `key`, `label`, `type` (text, number, date, boolean, select) and, for select, `options`.',
  async run(ctx, items) {
    for (const [i, f] of (items as Item[]).entries()) {
      if ((f.type === 'select') !== (f.options !== undefined)) {
        const message =
          f.type === 'select' ? 'a select field needs options' : 'only select fields have options';
        throw validationFailed([{ field: `custom_fields.${i}.options`, message }]);
      }
      await insertDefinition(ctx.trx, {
        account_id: ctx.accountId,
        entity: f.entity,
        key: f.key,
        label: f.label,
        type: f.type,
        options: JSON.stringify(f.options ?? []),
        required: f.required ? 1 : 0,
        position: f.position ?? i,
      });
      ctx.remember('custom_fields', undefined, 0);
    }
  },
};
