import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { sendBytes } from '../../shared/http.js';
import { Data, problemResponse } from '../../shared/schemas.js';
import { receiveUpload } from '../files/files.service.js';
import { AccountProfile, AccountProfilePatch, LOGO_MAX_BYTES } from './account.schemas.js';
import * as service from './account.service.js';

const tags = ['Account'];
const ADMIN_ONLY =
  'Beyond the specification (issue 13): the token must hold the scope below **and** act for a user who is an administrator of the account (403 `forbidden` otherwise).';
const notAdmin = problemResponse(
  'The token lacks the scope, or its user is not an administrator of the account',
);

/**
 * The company profile of the token's account (`/account/profile`): the details every invoice
 * prints. Not in the specification; see ADMIN_ONLY for who may use it.
 */
export const accountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/account/profile',
    {
      config: { scopes: ['account:read'] },
      schema: {
        tags,
        summary: 'Retrieve the company profile',
        description: `The company's legal name, address, tax and bank details, invoice texts, payment terms, number formats and logo, as invoices print them. ${ADMIN_ONLY}`,
        response: { 200: Data(AccountProfile), 403: notAdmin },
      },
    },
    async (req) => {
      await service.assertAccountAdmin(app.db, req.auth.accountId, req.auth.userId);
      return { data: await service.getAccountProfile(app.db, req.auth.accountId) };
    },
  );

  app.patch(
    '/account/profile',
    {
      config: { scopes: ['account:write'] },
      schema: {
        tags,
        summary: 'Change the company profile',
        description: `Changes the fields sent; \`null\` clears an optional one. Checked: IBAN (length of its country and check digits), BIC (ISO 9362), VAT id (the format of the country of its prefix), country code (ISO 3166-1), e-mail, phone, number formats; each wrong field is named in \`errors\` of the 422. IBAN, BIC and VAT id are stored upper case without blanks. Invoices booked before keep the details they were booked with; the next booking prints the new ones. Every change is recorded in the account's audit log. ${ADMIN_ONLY}`,
        body: AccountProfilePatch,
        response: { 200: Data(AccountProfile), 403: notAdmin },
      },
    },
    async (req) => {
      await service.assertAccountAdmin(app.db, req.auth.accountId, req.auth.userId);
      return {
        data: await service.updateAccountProfile(app.db, req.auth.accountId, req.body, {
          userId: req.auth.userId,
          kind: 'token',
        }),
      };
    },
  );

  app.get(
    '/account/profile/logo',
    {
      config: { scopes: ['account:read'] },
      schema: {
        tags,
        summary: 'The company logo',
        description: `The image (PNG or JPEG) of the profile's logo; 404 when there is none. ${ADMIN_ONLY}`,
        response: {
          200: {
            description: 'The image',
            content: {
              'image/png': { schema: { type: 'string', format: 'binary' } },
              'image/jpeg': { schema: { type: 'string', format: 'binary' } },
            },
          },
          403: notAdmin,
          404: problemResponse('The account has no logo'),
        },
      },
    },
    async (req, reply) => {
      await service.assertAccountAdmin(app.db, req.auth.accountId, req.auth.userId);
      const logo = await service.getAccountLogo(app.db, req.auth.accountId);
      return sendBytes(req, reply, {
        data: logo.data,
        contentType: logo.content_type,
        filename: logo.content_type === 'image/png' ? 'logo.png' : 'logo.jpg',
        sha256: logo.sha256,
        disposition: 'inline',
      });
    },
  );

  app.delete(
    '/account/profile/logo',
    {
      config: { scopes: ['account:write'] },
      schema: {
        tags,
        summary: 'Remove the company logo',
        description: `Invoices booked with the logo keep printing it. ${ADMIN_ONLY}`,
        response: { 204: Type.Null({ description: 'Removed (or there was none)' }), 403: notAdmin },
      },
    },
    async (req, reply) => {
      await service.assertAccountAdmin(app.db, req.auth.accountId, req.auth.userId);
      await service.removeAccountLogo(app.db, req.auth.accountId, { userId: req.auth.userId, kind: 'token' });
      return reply.code(204).send(null);
    },
  );
};

/** The logo upload: in the scope with the multipart parser (src/modules/index.ts). */
export const accountLogoRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.put(
    '/account/profile/logo',
    {
      config: { scopes: ['account:write'] },
      schema: {
        tags,
        summary: 'Upload the company logo',
        description: `multipart/form-data with the image in the part \`file\`: PNG or JPEG (recognised by its content; 415 otherwise), at most ${LOGO_MAX_BYTES / 1024} KB (413 above). Printed at the top of invoice PDFs booked from now on; invoices booked before keep theirs. ${ADMIN_ONLY}`,
        consumes: ['multipart/form-data'],
        body: {
          content: {
            'multipart/form-data': {
              schema: {
                properties: {
                  file: { type: 'string', format: 'binary', description: 'The image (required)' },
                },
              },
            },
          },
        },
        response: {
          200: Data(AccountProfile),
          403: notAdmin,
          413: problemResponse('Larger than the limit'),
          415: problemResponse('Not a PNG or JPEG image'),
        },
      },
    },
    async (req) => {
      await service.assertAccountAdmin(app.db, req.auth.accountId, req.auth.userId);
      // The declared type is only a first filter: the bytes decide (setAccountLogo).
      const upload = await receiveUpload(req, {
        accept: (t) => t === 'image/png' || t === 'image/jpeg' || t === 'application/octet-stream',
      });
      return {
        data: await service.setAccountLogo(app.db, req.auth.accountId, upload!.data, {
          userId: req.auth.userId,
          kind: 'token',
        }),
      };
    },
  );
};
