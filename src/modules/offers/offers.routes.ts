import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createRoute, getRoute, listRoute, updateRoute } from '../../shared/route-builders.js';
import { Data, IdParams, problemResponse } from '../../shared/schemas.js';
import { lineItemsRoute, pdfRoute } from '../outgoing-invoices/outgoing-invoices.public.js';
import { Offer, OfferCreate, OfferListQuery, OfferUpdate } from './offers.schemas.js';
import * as service from './offers.service.js';

const path = '/offers';
const tags = ['Offers'];
const read = { scopes: ['offer:read'] };
const write = { scopes: ['offer:write'] };
const BEYOND = 'Beyond the specification (offers came in only through the import).';
const LOCKED = '`offer_locked`: the offer is accepted, or an invoice was made from it';

export const offersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    {
      path: '/offers',
      tags,
      config: { ...read, pageCache: ['offers', 'offer_items'] },
      summary: 'List offers',
      description: 'Offers come in through the import. `date_from`/`date_to` filter the offer date.',
      querystring: OfferListQuery,
      item: Offer,
    },
    service.listOffers,
  );

  getRoute(
    app,
    {
      path: '/offers/:id',
      tags,
      config: { ...read, pageCache: ['offers', 'offer_items'] },
      summary: 'Retrieve an offer',
      item: Offer,
    },
    service.getOffer,
  );

  lineItemsRoute(
    app,
    { path, tags, config: read, summary: 'Line items of an offer' },
    service.listOfferItems,
  );
  pdfRoute(app, { path, tags, config: read, summary: 'PDF of an offer' }, service.offerPdf);

  createRoute(
    app,
    {
      path,
      tags,
      config: write,
      summary: 'Create an offer',
      description: `${BEYOND} Line items as for outgoing invoices (exact decimals, at most two for money). \`client_id\`, \`contact_id\` and \`project_id\` must be of the account (422 naming the field).`,
      body: OfferCreate,
      response: Offer,
      location: path,
    },
    service.createOffer,
  );

  updateRoute(
    app,
    {
      path: '/offers/:id',
      tags,
      config: write,
      summary: 'Update an offer',
      description: `${BEYOND} Changes the given fields; \`line_items\`, when present, replaces every line. \`status\` may go back and forth between \`created\` and \`sent\` (a declined offer may be reopened so). An accepted or invoiced offer is what was agreed and cannot change (409).`,
      body: OfferUpdate,
      item: Offer,
      responses: { 409: problemResponse(LOCKED) },
    },
    service.updateOffer,
  );

  app.delete(
    '/offers/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete an offer',
        description: `${BEYOND} The offer and its lines are removed for good; an accepted or invoiced one cannot be (409).`,
        params: IdParams,
        response: { 204: Type.Null({ description: 'Deleted' }), 409: problemResponse(LOCKED) },
      },
    },
    async (req, reply) => {
      await service.deleteOffer(app.db, req.auth, req.params.id);
      return reply.code(204).send(null);
    },
  );

  for (const [verb, status, summary] of [
    ['accept', 'accepted', 'Accept an offer'],
    ['decline', 'declined', 'Decline an offer'],
  ] as const)
    app.post(
      `/offers/:id/${verb}`,
      {
        config: write,
        schema: {
          tags,
          summary,
          description: `${BEYOND} Sets \`status\` to \`${status}\`. Only a \`created\` or \`sent\` offer can be: 409 \`offer_not_open\` for one already accepted or declined, \`offer_locked\` for one an invoice was made from.`,
          params: IdParams,
          response: {
            200: Data(Offer),
            409: problemResponse(`\`offer_not_open\`: the offer is already accepted or declined; ${LOCKED}`),
          },
        },
      },
      async (req) => ({ data: await service.decideOffer(app.db, req.auth, req.params.id, status) }),
    );
};
