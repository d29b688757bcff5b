/**
 * The front door of custom fields for the modules whose records carry them (companies,
 * contacts, projects, tasks): the value schemas of their bodies and answers, and the
 * functions that check and parse stored values.
 */
import { CustomFieldValues as CustomFieldValuesSchema } from './custom-fields.schemas.js';
import type { CustomFieldValues as CustomFieldValueMap } from './custom-fields.service.js';

export {
  type CustomFieldEntity,
  CustomFieldValue,
  CustomFieldValuesInput,
} from './custom-fields.schemas.js';
/** A record's custom field values by key: the schema, and the type of the parsed values. */
export const CustomFieldValues = CustomFieldValuesSchema;
export type CustomFieldValues = CustomFieldValueMap;
/** The import section of custom field definitions. */
export { customFieldsSection } from './custom-fields.import.js';
export {
  checkCustomFieldValue,
  type FieldDefinitionLike,
  getDefinition,
  parseCustomFieldValues,
  validateCustomFields,
  validateImportedCustomFields,
} from './custom-fields.service.js';
