import type { MailMessageRow } from './mail.repository.js';
import type { MailMessage } from './mail.schemas.js';

/** A message as the API shows it (its GET, the change feed, the events). */
export function toMailMessage(r: MailMessageRow): MailMessage {
  return {
    id: r.id,
    document_type: r.document_type as MailMessage['document_type'],
    document_id: r.document_id,
    status: r.status,
    from: r.from_address,
    reply_to: r.reply_to,
    to: JSON.parse(r.to_addresses),
    cc: JSON.parse(r.cc_addresses),
    bcc: JSON.parse(r.bcc_addresses),
    subject: r.subject,
    text: r.text_body,
    language: r.language,
    attachments: JSON.parse(r.attachments),
    message_id: r.message_id,
    attempts: r.attempts,
    smtp_response: r.smtp_response,
    smtp_code: r.smtp_code,
    error: r.last_error,
    next_attempt_at: r.next_attempt_at,
    sent_at: r.sent_at,
    failed_at: r.failed_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}
