import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  BUILT_IN_TEMPLATES,
  listTemplates,
  type MailLanguage,
  PLACEHOLDERS_OF,
  setTemplates,
  TEMPLATE_KINDS,
  type TemplateKind,
} from '../../modules/mail/mail.public.js';
import { AppError } from '../../shared/errors.js';
import { addMessages, langOf, translator } from '../i18n.js';
import { checkCsrf } from '../session.js';
import { consoleView, requireAdmin } from './shell.js';

const PAGE = '/console/company/mail-templates';
const hidden = { schema: { hide: true } };
const LANGUAGES: MailLanguage[] = ['de', 'en'];
/** The service's limits of a subject and a text (mail.schemas.ts). */
const MAX = { subject: 255, body: 20000 };

addMessages({
  en: {
    'mailTexts.title': 'E-mail texts',
    'mailTexts.link': 'E-mail texts of invoices, credit notes and offers',
    'mailTexts.intro':
      'The subject and text of the e-mail that carries a document to your client, in German and English. A text left as the service’s own follows it when the service’s text changes; placeholders in braces are filled in when the e-mail is sent.',
    'mailTexts.lang.de': 'German',
    'mailTexts.lang.en': 'English',
    'mailTexts.kind.invoice': 'Invoice',
    'mailTexts.kind.credit': 'Credit note',
    'mailTexts.kind.offer': 'Offer',
    'mailTexts.builtIn': 'The service’s text',
    'mailTexts.own': 'Your own text',
    'mailTexts.subject': 'Subject',
    'mailTexts.body': 'Text',
    'mailTexts.placeholders': 'Placeholders',
    'mailTexts.reset': 'Use the service’s text again',
    'mailTexts.save': 'Save e-mail texts',
    'mailTexts.back': 'Back to the company profile',
    'mailTexts.dunningHint':
      'Dunning letters are e-mailed with the subject and text of their dunning level (PUT /api/v1/dunning/levels).',
    'mailTexts.required': 'Must not be empty',
    'mailTexts.tooLong': 'Too long (at most {max} characters)',
    'mailTexts.oneLine': 'Must be one line',
  },
  de: {
    'mailTexts.title': 'E-Mail-Texte',
    'mailTexts.link': 'E-Mail-Texte für Rechnungen, Gutschriften und Angebote',
    'mailTexts.intro':
      'Betreff und Text der E-Mail, mit der ein Dokument an Ihre Kundschaft geht, auf Deutsch und Englisch. Ein unveränderter Text folgt dem Text des Dienstes, wenn dieser sich ändert; Platzhalter in geschweiften Klammern werden beim Versand ausgefüllt.',
    'mailTexts.lang.de': 'Deutsch',
    'mailTexts.lang.en': 'Englisch',
    'mailTexts.kind.invoice': 'Rechnung',
    'mailTexts.kind.credit': 'Gutschrift',
    'mailTexts.kind.offer': 'Angebot',
    'mailTexts.builtIn': 'Text des Dienstes',
    'mailTexts.own': 'Eigener Text',
    'mailTexts.subject': 'Betreff',
    'mailTexts.body': 'Text',
    'mailTexts.placeholders': 'Platzhalter',
    'mailTexts.reset': 'Wieder den Text des Dienstes verwenden',
    'mailTexts.save': 'E-Mail-Texte speichern',
    'mailTexts.back': 'Zurück zum Firmenprofil',
    'mailTexts.dunningHint':
      'Mahnungen gehen mit Betreff und Text ihrer Mahnstufe per E-Mail (PUT /api/v1/dunning/levels).',
    'mailTexts.required': 'Darf nicht leer sein',
    'mailTexts.tooLong': 'Zu lang (höchstens {max} Zeichen)',
    'mailTexts.oneLine': 'Muss eine Zeile sein',
  },
});

/** One block of the form: a language and kind with its texts. */
interface Block {
  language: MailLanguage;
  kind: TemplateKind;
  key: string;
  subject: string;
  body: string;
  builtIn: boolean;
  placeholders: readonly string[];
}

const keyOf = (language: string, kind: string) => `${language}-${kind}`;

async function page(
  req: FastifyRequest,
  reply: FastifyReply,
  blocks: Block[],
  extra: { errors?: Record<string, string>; notice?: string },
  status = 200,
) {
  const t = translator(langOf(req));
  return consoleView(
    req,
    reply,
    'console-mail-templates',
    {
      title: t('mailTexts.title'),
      languages: LANGUAGES,
      blocks,
      errors: extra.errors ?? {},
      notice: extra.notice ?? '',
      max: MAX,
    },
    status,
  );
}

/** The account's texts as the form's blocks, German first. */
async function storedBlocks(db: FastifyInstance['db'], user: { accountId: number; userId: number }) {
  const list = await listTemplates(db, user);
  return LANGUAGES.flatMap((language) =>
    TEMPLATE_KINDS.map((kind): Block => {
      const t = list.find((x) => x.language === language && x.kind === kind)!;
      return {
        language,
        kind,
        key: keyOf(language, kind),
        subject: t.subject,
        body: t.body,
        builtIn: t.built_in,
        placeholders: PLACEHOLDERS_OF[kind],
      };
    }),
  );
}

/**
 * The company's e-mail texts (issue 38): every language and kind with its subject and text and
 * the placeholders it may use, saved through the same service as
 * `PUT /api/v1/account/profile/mail-templates`. A text left as the built-in one, or marked to
 * be reset, is not stored, so it follows the service's text.
 */
export async function mailTemplatesPage(app: FastifyInstance): Promise<void> {
  app.get(PAGE, hidden, async (req, reply) => {
    const user = await requireAdmin(req);
    const t = translator(langOf(req));
    const q = req.query as Record<string, unknown>;
    return page(req, reply, await storedBlocks(app.db, user), {
      notice: q.saved !== undefined ? t('console.saved') : '',
    });
  });

  app.post(PAGE, hidden, async (req, reply) => {
    checkCsrf(req);
    const user = await requireAdmin(req);
    const t = translator(langOf(req));
    const body = (req.body ?? {}) as Record<string, unknown>;
    const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');
    const errors: Record<string, string> = {};
    const blocks: Block[] = [];
    const own: { language: MailLanguage; kind: TemplateKind; subject: string; body: string }[] = [];
    const positions: string[] = [];
    for (const language of LANGUAGES)
      for (const kind of TEMPLATE_KINDS) {
        const key = keyOf(language, kind);
        const builtIn = BUILT_IN_TEMPLATES[language][kind];
        const reset = body[`${key}.reset`] === 'on';
        // Browsers send a textarea's line breaks as CRLF.
        const subject = reset ? builtIn.subject : text(`${key}.subject`).trim();
        const content = reset ? builtIn.body : text(`${key}.body`).replace(/\r\n/g, '\n').trim();
        const same = subject === builtIn.subject && content === builtIn.body;
        blocks.push({
          language,
          kind,
          key,
          subject,
          body: content,
          builtIn: same,
          placeholders: PLACEHOLDERS_OF[kind],
        });
        if (subject === '') errors[`${key}.subject`] = t('mailTexts.required');
        else if (subject.length > MAX.subject)
          errors[`${key}.subject`] = t('mailTexts.tooLong', { max: String(MAX.subject) });
        else if (/[\r\n]/.test(subject)) errors[`${key}.subject`] = t('mailTexts.oneLine');
        if (content === '') errors[`${key}.body`] = t('mailTexts.required');
        else if (content.length > MAX.body)
          errors[`${key}.body`] = t('mailTexts.tooLong', { max: String(MAX.body) });
        if (!same) {
          own.push({ language, kind, subject, body: content });
          positions.push(key);
        }
      }
    if (Object.keys(errors).length > 0) return page(req, reply, blocks, { errors }, 422);
    try {
      await setTemplates(app.db, user, { templates: own });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'validation_failed') throw err;
      // `templates.<i>.<subject|body>`: back to the block the i-th own text came from.
      for (const e of err.errors ?? []) {
        const m = /^templates\.(\d+)\.(subject|body)$/.exec(e.field);
        const key = m ? positions[Number(m[1])] : undefined;
        if (key) errors[`${key}.${m![2]}`] ??= e.message.charAt(0).toUpperCase() + e.message.slice(1);
      }
      return page(req, reply, blocks, { errors }, 422);
    }
    return reply.redirect(`${PAGE}?saved`, 303);
  });
}
