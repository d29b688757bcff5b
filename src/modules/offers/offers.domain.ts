/**
 * The rules of writing offers (beyond the specification), as pure functions: which offers may
 * still change, which may be accepted or declined.
 */
import { AppError, type FieldError } from '../../shared/errors.js';

interface OfferState {
  id: number;
  status: string;
  invoice_id: number | null;
}

/** Only an offer that is still open (created or sent) can be accepted or declined. */
export const OPEN_STATUSES = ['created', 'sent'] as const;

/** An accepted offer, or one an invoice was made from, is what was agreed: it stays as it is. */
export function lockedReason(offer: OfferState): string | undefined {
  if (offer.invoice_id !== null) return `Offer ${offer.id} was invoiced (invoice ${offer.invoice_id})`;
  if (offer.status === 'accepted') return `Offer ${offer.id} is accepted`;
  return undefined;
}

/** 409 `offer_locked` for a change or delete of an accepted or invoiced offer. */
export function assertChangeable(offer: OfferState): void {
  const reason = lockedReason(offer);
  if (reason) throw new AppError('offer_locked', `${reason} and cannot be changed or deleted`);
}

/** 409 for accepting or declining an offer that is no longer open. */
export function assertDecidable(offer: OfferState): void {
  if (offer.invoice_id !== null) assertChangeable(offer);
  if (!(OPEN_STATUSES as readonly string[]).includes(offer.status))
    throw new AppError(
      'offer_not_open',
      `Offer ${offer.id} is ${offer.status}: only a created or sent offer can be accepted or declined`,
    );
}

/** An offer is valid until a day on or after its date. */
export function periodErrors(date: string | null, validUntil: string | null): FieldError[] {
  return date !== null && validUntil !== null && validUntil < date
    ? [{ field: 'valid_until', message: 'must not be before date' }]
    : [];
}
