import { type Static, Type } from 'typebox';
import {
  CountryCode,
  Email,
  Id,
  Nullable,
  optional,
  SortedPagingQuery,
  Text,
  Timestamp,
  UpdatedSinceQuery,
} from '../../shared/schemas.js';

const writable = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  street: Text(),
  zip: Text(32),
  city: Text(),
  country_code: Nullable(CountryCode),
  vat_id: Text(64),
  tax_number: Text(64),
  iban: Nullable(
    Type.String({ pattern: '^[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}$', description: 'IBAN without spaces' }),
  ),
  bic: Nullable(Type.String({ pattern: '^[A-Z0-9]{8}([A-Z0-9]{3})?$' })),
  email: Nullable(Email),
  chart_of_account_id: Nullable({ ...Id, description: 'Default account for bookings of this supplier' }),
  payment_term_days: Nullable(Type.Integer({ minimum: 0, maximum: 3650 })),
  notes: Text(10000),
  external_id: Text(),
};
const { name, ...rest } = writable;

export const Supplier = Type.Object(
  { id: Id, ...writable, created_at: Timestamp, updated_at: Timestamp },
  { $id: 'Supplier' },
);
export type Supplier = Static<typeof Supplier>;

export const SupplierCreate = Type.Object({ name, ...optional(rest) }, { additionalProperties: false });
export type SupplierCreate = Static<typeof SupplierCreate>;

export const SupplierUpdate = Type.Object(optional(writable), {
  additionalProperties: false,
  minProperties: 1,
});
export type SupplierUpdate = Static<typeof SupplierUpdate>;

export const SupplierListQuery = Type.Object(
  {
    ...SortedPagingQuery(['name', 'city', 'country_code']),
    ...UpdatedSinceQuery,
    q: Type.Optional(
      Type.String({
        maxLength: 255,
        description: 'Case-insensitive match on name, VAT id, email or external_id',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SupplierListQuery = Static<typeof SupplierListQuery>;
