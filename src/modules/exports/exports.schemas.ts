import { type Static, Type } from 'typebox';
import { DateString, Id, Nullable, PagingQuery, Timestamp } from '../../shared/schemas.js';

export const DatevExportCreate = Type.Object(
  {
    date_from: { ...DateString, description: 'First day of the export (booking, payment or invoice date)' },
    date_to: {
      ...DateString,
      description: 'Last day of the export; in the fiscal year of `date_from` (DATEV imports one at a time)',
    },
    lock: Type.Optional(
      Type.Boolean({
        description:
          'Lock the months of the range for good (Festschreibung; whole months only): nothing dated in them can be booked, changed or deleted any more, and the header says so. There is no unlock.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type DatevExportCreate = Static<typeof DatevExportCreate>;

export const DatevExport = Type.Object(
  {
    id: Id,
    date_from: DateString,
    date_to: DateString,
    locked: Type.Boolean({ description: 'The months of the export are locked (Festschreibung flag 1)' }),
    file_name: Type.String({ description: 'Name of the ZIP' }),
    sha256: Type.String({ description: 'Hex SHA-256 of the ZIP: every download gives these bytes' }),
    byte_size: Type.Integer({ minimum: 1 }),
    bookings: Type.Integer({ minimum: 0, description: 'Rows of EXTF_Buchungsstapel.csv' }),
    debtors: Type.Integer({ minimum: 0, description: 'Clients in EXTF_Debitoren_Kreditoren.csv' }),
    creditors: Type.Integer({ minimum: 0, description: 'Suppliers in EXTF_Debitoren_Kreditoren.csv' }),
    created_by: Nullable(Id),
    created_at: Timestamp,
    download_url: Type.String({ description: 'Where the ZIP is read: GET /exports/datev/{id}/download' }),
  },
  {
    $id: 'DatevExport',
    additionalProperties: false,
    description:
      'A DATEV export (EXTF format 700): a ZIP with EXTF_Buchungsstapel.csv (category 21) and EXTF_Debitoren_Kreditoren.csv (category 16), Windows-1252, kept byte for byte',
  },
);
export type DatevExport = Static<typeof DatevExport>;

export const DatevExportListQuery = Type.Object(PagingQuery, { additionalProperties: false });

export const LockedPeriod = Type.Object(
  {
    period: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}$', description: 'The month, YYYY-MM' }),
    locked_at: Timestamp,
    locked_by: Nullable(Id),
    export_id: Nullable(Id),
  },
  {
    $id: 'LockedPeriod',
    additionalProperties: false,
    description: 'A month locked for good (Festschreibung)',
  },
);
