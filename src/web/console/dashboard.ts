import type { FastifyInstance } from 'fastify';
import { uninvoicedByProject } from '../../modules/billing/billing.service.js';
import { letterTitle } from '../../modules/dunning/dunning.public.js';
import { hoursOf } from '../../shared/hours.js';
import { centsToString } from '../../shared/money.js';
import { formatterFor } from '../../shared/pdf/format.js';
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
    'dash.uninvoiced': 'Not invoiced yet',
    'dash.uninvoicedIntro':
      'Billable time on no invoice, at its hourly rates, by project (the largest first).',
    'dash.uninvoicedNone': 'All billable time is invoiced.',
    'dash.uninvoicedMore': 'and {count} more projects (GET /reports/uninvoiced lists all)',
    'dash.project': 'Project',
    'dash.client': 'Client',
    'dash.hours': 'Hours',
    'dash.value': 'Value',
    'dash.byLevel': 'Overdue by dunning level',
    'dash.byLevelIntro':
      'Overdue invoices by the last dunning letter that stands (GET /dunnings lists them).',
    'dash.level': 'Level',
    'dash.level0': 'Not dunned yet',
    'dash.invoices': 'Invoices',
    'dash.amount': 'Open amount',
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
    'dash.uninvoiced': 'Noch nicht abgerechnet',
    'dash.uninvoicedIntro':
      'Abrechenbare Zeit auf keiner Rechnung, zu ihren Stundensätzen, nach Projekt (die größten zuerst).',
    'dash.uninvoicedNone': 'Alle abrechenbare Zeit ist abgerechnet.',
    'dash.uninvoicedMore': 'und {count} weitere Projekte (GET /reports/uninvoiced listet alle)',
    'dash.project': 'Projekt',
    'dash.client': 'Kunde',
    'dash.hours': 'Stunden',
    'dash.value': 'Wert',
    'dash.byLevel': 'Überfällig nach Mahnstufe',
    'dash.byLevelIntro':
      'Überfällige Rechnungen nach dem letzten gültigen Mahnschreiben (GET /dunnings listet sie).',
    'dash.level': 'Stufe',
    'dash.level0': 'Noch nicht gemahnt',
    'dash.invoices': 'Rechnungen',
    'dash.amount': 'Offener Betrag',
  },
});

/** Projects shown with their uninvoiced value; the rest are counted. */
const UNINVOICED_ROWS = 10;

/** The console's first page: numbers at a glance (dashboard.read-model.ts, billing). */
export async function dashboardPage(app: FastifyInstance): Promise<void> {
  app.get('/console', { schema: { hide: true } }, async (req, reply) => {
    const user = await sessionUser(req);
    // Sign-in lands here; a member has no console and goes on to their own page.
    if (user?.role !== 'admin') return reply.redirect('/me', 303);
    const lang = langOf(req);
    const t = translator(lang);
    const [numbers, uninvoiced] = await Promise.all([
      dashboardNumbers(app.db, user.accountId, user.userId, todayIso()),
      uninvoicedByProject(app.db, user.accountId),
    ]);
    const largest = uninvoiced
      .filter((p) => p.minutes > 0)
      .sort((a, b) => b.value - a.value || a.project_id - b.project_id);
    // Exact decimal strings, formatted as the documents format them (no float on the way).
    const money = (currency: string, cents: number) =>
      formatterFor({ language: lang, currency }).money(centsToString(cents));
    const figures = (list: { currency: string; count: number; cents: number }[]) =>
      list.map((e) => ({
        amount: money(e.currency, e.cents),
        count: e.count === 1 ? t('dash.count1') : t('dash.count', { count: e.count }),
      }));
    return consoleView(req, reply, 'console-dashboard', {
      title: t('console.nav.dashboard'),
      open: figures(numbers.outgoing.open),
      overdue: figures(numbers.outgoing.overdue),
      byLevel: numbers.outgoing.overdueByLevel.map((e) => ({
        level: e.level === 0 ? t('dash.level0') : letterTitle(lang === 'de' ? 'de' : 'en', e.level),
        count: e.count,
        amount: money(e.currency, e.cents),
      })),
      partial: numbers.outgoing.partial,
      incoming: numbers.incoming.map((i) => ({ label: t(`dash.extraction.${i.status}`), count: i.count })),
      uninvoiced: largest.slice(0, UNINVOICED_ROWS).map((p) => ({
        project: p.name,
        client: p.client_name ?? '',
        hours: new Intl.NumberFormat(lang === 'de' ? 'de-DE' : 'en-GB', { maximumFractionDigits: 2 }).format(
          Number(hoursOf(p.minutes)),
        ),
        value: money(p.currency, p.value),
      })),
      uninvoicedMore: Math.max(0, largest.length - UNINVOICED_ROWS),
      series: numbers.series.map((s) => ({
        kind: t(`dash.kind.${s.kind}`),
        year: s.year === null ? t('dash.allYears') : String(s.year),
        last: s.last_number ?? '—',
        booked: s.booked_count,
      })),
    });
  });
}
