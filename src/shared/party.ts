/**
 * The columns clients, companies and suppliers share: how to reach a party and where it is
 * taxed. One definition, so that a column added here reaches every table interface and the
 * answers that map them in the same order.
 */
export interface AddressColumns {
  street: string | null;
  zip: string | null;
  city: string | null;
  country_code: string | null;
  vat_id: string | null;
  tax_number: string | null;
}

export interface PartyColumns extends AddressColumns {
  email: string | null;
  phone: string | null;
  website: string | null;
}

/** The party fields of an answer, in the order the schemas declare them (e-mail to tax number). */
export const partyOf = (r: PartyColumns): PartyColumns => ({
  email: r.email,
  phone: r.phone,
  website: r.website,
  street: r.street,
  zip: r.zip,
  city: r.city,
  country_code: r.country_code,
  vat_id: r.vat_id,
  tax_number: r.tax_number,
});
