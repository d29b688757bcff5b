import type { FastifyInstance } from 'fastify';
import { listAuditEntries } from '../../modules/audit/audit.service.js';
import { addMessages, langOf, translator } from '../i18n.js';
import { consoleView, requireAdmin } from './shell.js';

addMessages({
  en: {
    'audit.intro': 'Every change made in this account, newest first: who made it, when, and what.',
    'audit.when': 'When',
    'audit.who': 'Who',
    'audit.what': 'What',
    'audit.target': 'Target',
    'audit.detail': 'Details',
    'audit.none': 'Nothing has been recorded yet.',
    'audit.older': 'Older entries',
    'audit.newest': 'Newest entries',
    'audit.count': '{total} entries',
    'audit.count1': '1 entry',
    'audit.action.account.profile_update': 'Company profile changed',
    'audit.action.account.logo_set': 'Logo uploaded',
    'audit.action.account.logo_remove': 'Logo removed',
    'audit.kind.user': 'in the console',
    'audit.kind.token': 'through the API',
    'audit.kind.cli': 'with the CLI',
    'audit.unknownUser': 'unknown user',
  },
  de: {
    'audit.intro': 'Jede Änderung in diesem Konto, die neueste zuerst: wer sie wann gemacht hat und was.',
    'audit.when': 'Wann',
    'audit.who': 'Wer',
    'audit.what': 'Was',
    'audit.target': 'Objekt',
    'audit.detail': 'Details',
    'audit.none': 'Bisher ist nichts protokolliert.',
    'audit.older': 'Ältere Einträge',
    'audit.newest': 'Neueste Einträge',
    'audit.count': '{total} Einträge',
    'audit.count1': '1 Eintrag',
    'audit.action.account.profile_update': 'Firmenprofil geändert',
    'audit.action.account.logo_set': 'Logo hochgeladen',
    'audit.action.account.logo_remove': 'Logo entfernt',
    'audit.kind.user': 'in der Konsole',
    'audit.kind.token': 'über die API',
    'audit.kind.cli': 'mit der CLI',
    'audit.unknownUser': 'unbekannt',
  },
});

const PER_PAGE = 50;

/** `2026-11-23 14:05 UTC`: one unambiguous form for both languages. */
const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** A detail object as short `key: value` lines (values as JSON, cut to a readable length). */
function detailLines(detail: Record<string, unknown> | null): string[] {
  if (!detail) return [];
  return Object.entries(detail)
    .slice(0, 20)
    .map(([k, v]) => {
      const s =
        typeof v === 'string'
          ? v
          : Array.isArray(v) && v.every((x) => typeof x === 'string')
            ? v.join(', ')
            : JSON.stringify(v);
      return `${k}: ${s.length > 200 ? `${s.slice(0, 199)}…` : s}`;
    });
}

/** The audit log (admins only): who did what and when, paged newest first. */
export async function auditPage(app: FastifyInstance): Promise<void> {
  app.get('/console/audit', { schema: { hide: true } }, async (req, reply) => {
    const user = await requireAdmin(req);
    const t = translator(langOf(req));
    const raw = (req.query as Record<string, unknown>).before;
    // A bad cursor is the first page, not an error: it only comes from an edited URL.
    const before = typeof raw === 'string' && /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : undefined;
    const page = await listAuditEntries(app.db, user.accountId, { limit: PER_PAGE, before });
    const rows = page.entries.map((e) => ({
      when: when(e.created_at),
      iso: e.created_at,
      who: e.actor_name
        ? `${e.actor_name} <${e.actor_email ?? ''}>`
        : e.actor_kind === 'cli'
          ? 'CLI'
          : t('audit.unknownUser'),
      how: t(`audit.kind.${e.actor_kind}`),
      action: e.action,
      // Known actions in words (other pages add theirs as audit.action.<action>); the code stays visible.
      label:
        t(`audit.action.${e.action}`) === `audit.action.${e.action}` ? '' : t(`audit.action.${e.action}`),
      target: e.target_type ? `${e.target_type}${e.target_id ? ` ${e.target_id}` : ''}` : '',
      detail: detailLines(e.detail),
    }));
    return consoleView(req, reply, 'console-audit', {
      rows,
      total: page.total,
      count: page.total === 1 ? t('audit.count1') : t('audit.count', { total: page.total }),
      olderHref: page.next_before ? `/console/audit?before=${page.next_before}` : '',
      newestHref: before !== undefined ? '/console/audit' : '',
    });
  });
}
