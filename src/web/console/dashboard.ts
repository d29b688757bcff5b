import type { FastifyInstance } from 'fastify';
import { todayIso } from '../../shared/time.js';
import { addMessages, langOf, translator } from '../i18n.js';
import { sessionUser } from '../session.js';
import { dashboardNumbers } from './dashboard.read-model.js';
import { consoleView } from './shell.js';

addMessages({
  en: {
    'dash.intro': 'Your numbers at a glance.',
    'dash.open': 'Open invoices',
    'dash.overdue': 'Overdue invoices',
    'dash.count': '{count} invoices',
    'dash.count1': '1 invoice',
    'dash.none': 'None',
    'dash.partial': 'Only the latest {limit} booked invoices were counted.',
    'dash.incoming': 'Incoming documents waiting for review',
    'dash.incomingIntro': 'Documents not yet approved, by the state of reading their data.',
    'dash.extraction': 'Reading',
    'dash.documents': 'Documents',
    'dash.extraction.pending': 'Being read',
    'dash.extraction.done': 'Read',
    'dash.extraction.failed': 'Could not be read',
    'dash.extraction.skipped': 'Not read (entered by hand)',
    'dash.series': 'Number series',
    'dash.seriesNone': 'No invoice has been booked yet.',
    'dash.kind': 'Series',
    'dash.year': 'Year',
    'dash.last': 'Last number',
    'dash.booked': 'Booked',
    'dash.kind.invoice': 'Invoices',
    'dash.kind.credit': 'Credit notes',
    'dash.allYears': 'all years',
  },
  de: {
    'dash.intro': 'Ihre Zahlen auf einen Blick.',
    'dash.open': 'Offene Rechnungen',
    'dash.overdue': 'Überfällige Rechnungen',
    'dash.count': '{count} Rechnungen',
    'dash.count1': '1 Rechnung',
    'dash.none': 'Keine',
    'dash.partial': 'Nur die letzten {limit} gebuchten Rechnungen wurden gezählt.',
    'dash.incoming': 'Eingangsbelege zur Prüfung',
    'dash.incomingIntro': 'Noch nicht freigegebene Belege, nach dem Stand des Auslesens.',
    'dash.extraction': 'Auslesen',
    'dash.documents': 'Belege',
    'dash.extraction.pending': 'Wird ausgelesen',
    'dash.extraction.done': 'Ausgelesen',
    'dash.extraction.failed': 'Nicht lesbar',
    'dash.extraction.skipped': 'Nicht ausgelesen (von Hand erfasst)',
    'dash.series': 'Nummernkreise',
    'dash.seriesNone': 'Noch keine Rechnung gebucht.',
    'dash.kind': 'Art',
    'dash.year': 'Jahr',
    'dash.last': 'Letzte Nummer',
    'dash.booked': 'Gebucht',
    'dash.kind.invoice': 'Rechnungen',
    'dash.kind.credit': 'Gutschriften',
    'dash.allYears': 'alle Jahre',
  },
});

/** The console's first page: numbers at a glance (dashboard.read-model.ts). */
export async function dashboardPage(app: FastifyInstance): Promise<void> {
  app.get('/console', { schema: { hide: true } }, async (req, reply) => {
    const user = await sessionUser(req);
    // Sign-in lands here; a member has no console and goes on to their own page.
    if (user?.role !== 'admin') return reply.redirect('/me', 303);
    const lang = langOf(req);
    const t = translator(lang);
    const numbers = await dashboardNumbers(app.db, user.accountId, user.userId, todayIso());
    const money = (currency: string, cents: number) =>
      new Intl.NumberFormat(lang === 'de' ? 'de-DE' : 'en-GB', { style: 'currency', currency }).format(
        cents / 100,
      );
    const figures = (list: { currency: string; count: number; cents: number }[]) =>
      list.map((e) => ({
        amount: money(e.currency, e.cents),
        count: e.count === 1 ? t('dash.count1') : t('dash.count', { count: e.count }),
      }));
    return consoleView(req, reply, 'console-dashboard', {
      title: t('console.nav.dashboard'),
      open: figures(numbers.outgoing.open),
      overdue: figures(numbers.outgoing.overdue),
      partial: numbers.outgoing.partial,
      incoming: numbers.incoming.map((i) => ({ label: t(`dash.extraction.${i.status}`), count: i.count })),
      series: numbers.series.map((s) => ({
        kind: t(`dash.kind.${s.kind}`),
        year: s.year === null ? t('dash.allYears') : String(s.year),
        last: s.last_number ?? '—',
        booked: s.booked_count,
      })),
    });
  });
}
