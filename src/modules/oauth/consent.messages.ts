import { SCOPE_DESCRIPTIONS } from '../../shared/scopes.js';
import { addMessages } from '../../web/i18n.js';

/** The scopes in plain German words (English: shared/scopes.ts). */
const SCOPES_DE: Record<keyof typeof SCOPE_DESCRIPTIONS, string> = {
  'user:read': 'Die Benutzer Ihres Kontos mit allen Angaben sehen',
  'client:read': 'Kunden sehen',
  'client:write': 'Kunden anlegen, ändern und archivieren',
  'task-management:read': 'Projekte, Aufgaben und Kommentare sehen',
  'task-management:write': 'Aufgaben und Kommentare anlegen und ändern',
  'efforts:read': 'Erfasste Aufwände (Zeiten) sehen',
  'efforts:extended:read': 'Auch die Aufwände von Administratoren sehen',
  'contact-data:read': 'Kontakte und Firmen sehen',
  'contact-data:write': 'Kontakte und Firmen anlegen, ändern und archivieren',
  'offer:read': 'Angebote sehen',
  'outgoing-invoice:read': 'Ausgangsrechnungen und ihre PDFs sehen',
  'outgoing-invoice:write': 'Ausgangsrechnungen und Rechnungspläne anlegen und ändern',
  'outgoing-invoice:upload': 'Anderswo erstellte Rechnungen hochladen',
  'outgoing-invoice:book': 'Ausgangsrechnungen buchen (endgültige Nummer vergeben)',
  'outgoing-invoice:force-delete': 'Ausgangsrechnungen löschen, auch gebuchte',
  'incoming-invoice:read': 'Eingangsrechnungen und Lieferanten sehen',
  'incoming-invoice:write': 'Eingangsrechnungen und Lieferanten anlegen und ändern',
  'chart-of-accounts:read': 'Den Kontenrahmen und seine Buchungen sehen',
  'chart-of-accounts:write': 'Eingangsrechnungen auf Konten buchen',
  'payments:read': 'Zahlungen und Zahlungskonten sehen',
  'payments:write': 'Zahlungen erfassen',
  'user_group:read': 'Benutzergruppen und ihre Mitglieder sehen',
  integration: 'Webhooks dieser App verwalten und Zusatzfelder sehen',
  'account:read': 'Das Firmenprofil sehen (Adresse, Steuer- und Bankdaten, Rechnungseinstellungen)',
  'account:write': 'Das Firmenprofil ändern, das Rechnungen drucken',
  'efforts:write': 'Ihre eigenen Zeiten erfassen, ändern und löschen',
  'efforts:extended:write': 'Zeiten anderer Benutzer und Verwaltungszeiten erfassen und ändern',
  'project:write': 'Projekte und ihre Teams anlegen, ändern und archivieren',
  'offer:write': 'Angebote anlegen, ändern, annehmen und ablehnen',
  'user:write': 'Stunden- und Kostensätze von Benutzern festlegen (nur Administratoren)',
  'accounting:export':
    'Die Buchhaltung für Ihre Steuerberatung an DATEV exportieren und exportierte Monate festschreiben',
  'banking:read': 'Kontoauszüge, Bankumsätze und ihre Zuordnung sehen',
  'banking:write': 'Kontoauszüge einlesen, Bankumsätze Rechnungen zuordnen und Bankkonten verwalten',
  'dunning:read': 'Mahnstufen, Basiszinssätze und Mahnungen sehen',
  'dunning:write': 'Mahnstufen und Basiszinssätze ändern, Mahnläufe starten, Mahnungen stornieren und senden',
  'outgoing-invoice:send': 'Gebuchte Rechnungen und Gutschriften per E-Mail an Ihre Kunden senden',
  'offer:send': 'Angebote per E-Mail an Ihre Kunden senden',
  'user-profile:read': 'Ihr eigenes vollständiges Benutzerprofil sehen',
};

const scopeKeys = (table: Record<string, string>) =>
  Object.fromEntries(Object.entries(table).map(([s, text]) => [`scope.${s}`, text]));

addMessages({
  en: {
    'consent.title': 'Allow {app}?',
    'consent.intro': 'wants to act for you, {user}, in this account. It asks to:',
    'consent.hint': 'You can take this back at any time: the app then loses access at once.',
    'consent.allow': 'Allow',
    'consent.deny': 'Deny',
    'consent.otherProfile': 'See your own user profile ({name})',
    ...scopeKeys(SCOPE_DESCRIPTIONS),
  },
  de: {
    'consent.title': '{app} zulassen?',
    'consent.intro': 'möchte für Sie, {user}, in diesem Konto handeln. Die App bittet darum:',
    'consent.hint': 'Sie können das jederzeit zurücknehmen: Die App verliert dann sofort den Zugriff.',
    'consent.allow': 'Zulassen',
    'consent.deny': 'Ablehnen',
    'consent.otherProfile': 'Ihr eigenes Benutzerprofil sehen ({name})',
    ...scopeKeys(SCOPES_DE),
  },
});
