/**
 * The front door of custom fields for the modules whose records carry them (companies,
 * contacts, projects, tasks): the value schemas of their bodies and answers, and the
 * functions that check and parse stored values.
 */
export {
  type CustomFieldEntity,
  CustomFieldValue,
  CustomFieldValues,
  CustomFieldValuesInput,
} from './custom-fields.schemas.js';
/** The parsed values of a record, by key (the type of the `CustomFieldValues` schema's data). */
export type { CustomFieldValues as CustomFieldValueMap } from './custom-fields.service.js';
export {
  checkCustomFieldValue,
  type FieldDefinitionLike,
  getDefinition,
  parseCustomFieldValues,
  validateCustomFields,
} from './custom-fields.service.js';
