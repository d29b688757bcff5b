import { createRequire } from 'node:module';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import countries from 'i18n-iso-countries';
import { Type } from 'typebox';
import { ListMeta } from '../../shared/schemas.js';

const require = createRequire(import.meta.url);
const LANGS = ['en', 'de', 'fr', 'es', 'it', 'nl'] as const;
for (const lang of LANGS) countries.registerLocale(require(`i18n-iso-countries/langs/${lang}.json`));

const Country = Type.Object(
  {
    code: Type.String({ description: 'ISO 3166-1 alpha-2' }),
    alpha3: Type.String({ description: 'ISO 3166-1 alpha-3' }),
    numeric: Type.String({ description: 'ISO 3166-1 numeric' }),
    name: Type.String(),
  },
  { $id: 'Country' },
);

// The list is static: compute each language's answer once.
type CountryRow = { code: string; alpha3: string; numeric: string; name: string };
const cache = new Map<
  string,
  { data: CountryRow[]; meta: { page: number; per_page: number; total: number } }
>();
function countryList(lang: string) {
  let hit = cache.get(lang);
  if (!hit) {
    const names = countries.getNames(lang, { select: 'official' });
    const data = Object.entries(countries.getAlpha2Codes())
      .map(([code]) => ({
        code,
        alpha3: countries.alpha2ToAlpha3(code) ?? '',
        numeric: countries.alpha2ToNumeric(code) ?? '',
        name: names[code] ?? countries.getName(code, 'en') ?? code,
      }))
      .sort((a, b) => a.code.localeCompare(b.code));
    hit = { data, meta: { page: 1, per_page: data.length, total: data.length } };
    cache.set(lang, hit);
  }
  return hit;
}

export const settingsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/settings/countries',
    {
      config: { scopes: [] },
      schema: {
        tags: ['Settings'],
        summary: 'List countries',
        description:
          'The full ISO 3166-1 list in one answer (it is a fixed reference list, so it is not paged), ordered by code.',
        querystring: Type.Object(
          {
            lang: Type.Optional(
              Type.Union(
                LANGS.map((l) => Type.Literal(l)),
                { default: 'en' },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ data: Type.Array(Country), meta: ListMeta }) },
      },
    },
    async (req) => countryList(req.query.lang ?? 'en'),
  );
};
