import type { FastifyRequest } from 'fastify';

export type Lang = 'en' | 'de';
export const LANGS: readonly Lang[] = ['en', 'de'];

const MESSAGES: Record<Lang, Record<string, string>> = {
  en: {
    'app.name': 'Project and Invoicing',
    'signin.title': 'Sign in',
    'signin.email': 'E-mail',
    'signin.password': 'Password',
    'signin.submit': 'Sign in',
    'signin.failed': 'The e-mail or the password is wrong.',
    'signin.throttled': 'Too many failed attempts. Please wait {minutes} minutes and try again.',
    'signin.signedOut': 'You have signed out.',
    'signin.passwordSet': 'Your password is set.',
    'signout.submit': 'Sign out',
    'me.title': 'Signed in',
    'me.signedInAs': 'You are signed in as {name}.',
    'me.email': 'E-mail',
    'me.account': 'Account',
    'me.role': 'Role',
    'role.admin': 'Administrator',
    'role.member': 'Member',
    'invite.title': 'Set your password',
    'invite.intro': 'Choose a password for {email}.',
    'invite.password': 'New password',
    'invite.confirm': 'Repeat the password',
    'invite.hint': 'At least {min} characters.',
    'invite.submit': 'Set password',
    'invite.mismatch': 'The two passwords differ.',
    'invite.tooShort': 'The password must be at least {min} characters long.',
    'invite.tooLong': 'The password is too long.',
    'invite.gone': 'This link has expired or has already been used. Ask an administrator for a new one.',
    'error.title': 'Something went wrong',
    'error.csrf':
      'The form has expired or was not sent from this site. Please reload the page and try again.',
    'error.notFound': 'This page does not exist.',
    'error.badRequest': 'The form could not be read. Please reload the page and try again.',
    'error.internal': 'An unexpected error occurred. Please try again in a moment.',
    'error.busy': 'Too many sign-ins at this moment. Please try again in a few seconds.',
    'error.back': 'Back to sign-in',
  },
  de: {
    'app.name': 'Projekte und Rechnungen',
    'signin.title': 'Anmelden',
    'signin.email': 'E-Mail',
    'signin.password': 'Passwort',
    'signin.submit': 'Anmelden',
    'signin.failed': 'E-Mail-Adresse oder Passwort ist falsch.',
    'signin.throttled':
      'Zu viele fehlgeschlagene Versuche. Bitte warten Sie {minutes} Minuten und versuchen Sie es erneut.',
    'signin.signedOut': 'Sie haben sich abgemeldet.',
    'signin.passwordSet': 'Ihr Passwort ist gesetzt.',
    'signout.submit': 'Abmelden',
    'me.title': 'Angemeldet',
    'me.signedInAs': 'Sie sind als {name} angemeldet.',
    'me.email': 'E-Mail',
    'me.account': 'Konto',
    'me.role': 'Rolle',
    'role.admin': 'Administrator',
    'role.member': 'Mitglied',
    'invite.title': 'Passwort festlegen',
    'invite.intro': 'Wählen Sie ein Passwort für {email}.',
    'invite.password': 'Neues Passwort',
    'invite.confirm': 'Passwort wiederholen',
    'invite.hint': 'Mindestens {min} Zeichen.',
    'invite.submit': 'Passwort festlegen',
    'invite.mismatch': 'Die beiden Passwörter stimmen nicht überein.',
    'invite.tooShort': 'Das Passwort muss mindestens {min} Zeichen lang sein.',
    'invite.tooLong': 'Das Passwort ist zu lang.',
    'invite.gone':
      'Dieser Link ist abgelaufen oder wurde bereits verwendet. Bitten Sie eine Administratorin oder einen Administrator um einen neuen.',
    'error.title': 'Etwas ist schiefgegangen',
    'error.csrf':
      'Das Formular ist abgelaufen oder wurde nicht von dieser Seite gesendet. Bitte laden Sie die Seite neu und versuchen Sie es erneut.',
    'error.notFound': 'Diese Seite gibt es nicht.',
    'error.badRequest': 'Das Formular konnte nicht gelesen werden. Bitte laden Sie die Seite neu.',
    'error.internal': 'Ein unerwarteter Fehler ist aufgetreten. Bitte versuchen Sie es gleich noch einmal.',
    'error.busy': 'Gerade melden sich zu viele an. Bitte versuchen Sie es in ein paar Sekunden erneut.',
    'error.back': 'Zurück zur Anmeldung',
  },
};

/** Other pages (consent, console) add their texts here, in both languages. */
export function addMessages(messages: Record<Lang, Record<string, string>>): void {
  for (const lang of LANGS) Object.assign(MESSAGES[lang], messages[lang]);
}

/** The first of our languages the browser accepts (by q-value), English otherwise. */
export function pickLang(header: string | undefined): Lang {
  if (!header) return 'en';
  const ranked = header
    .split(',')
    .slice(0, 20)
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { lang: tag.trim().toLowerCase().split('-')[0], q: q === undefined ? 1 : Number(q), i };
    })
    .filter((x) => x.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranked) if ((LANGS as readonly string[]).includes(r.lang ?? '')) return r.lang as Lang;
  return 'en';
}

export type Translate = (key: string, vars?: Record<string, string | number>) => string;

export function translator(lang: Lang): Translate {
  return (key, vars) => {
    const text = MESSAGES[lang][key] ?? MESSAGES.en[key] ?? key;
    return vars ? text.replace(/\{(\w+)\}/g, (m, name: string) => String(vars[name] ?? m)) : text;
  };
}

/** The language chosen with the console's switch (cookie `lang`), else the browser's. */
export const langOf = (req: FastifyRequest): Lang =>
  (/(?:^|;\s*)(?:__Host-)?lang=(en|de)(?:;|$)/.exec(req.headers.cookie ?? '')?.[1] as Lang | undefined) ??
  pickLang(req.headers['accept-language']);
