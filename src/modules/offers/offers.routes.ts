import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listResponse } from '../../shared/paging.js';
import { Data, IdParams, List } from '../../shared/schemas.js';
import { lineItemsRoute, pdfRoute } from '../outgoing-invoices/outgoing-invoices.public.js';
import { Offer, OfferListQuery } from './offers.schemas.js';
import * as service from './offers.service.js';

const path = '/offers';
const tags = ['Offers'];
const read = { scopes: ['offer:read'] };
const same = <T>(x: T) => x;

export const offersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/offers',
    {
      config: read,
      schema: {
        tags,
        summary: 'List offers',
        description: 'Offers come in through the import. `date_from`/`date_to` filter the offer date.',
        querystring: OfferListQuery,
        response: { 200: List(Offer) },
      },
    },
    async (req, reply) =>
      listResponse(req, reply, await service.listOffers(app.db, req.auth, req.query), same),
  );

  app.get(
    '/offers/:id',
    {
      config: read,
      schema: { tags, summary: 'Retrieve an offer', params: IdParams, response: { 200: Data(Offer) } },
    },
    async (req) => ({ data: await service.getOffer(app.db, req.auth, req.params.id) }),
  );

  lineItemsRoute(
    app,
    { path, tags, config: read, summary: 'Line items of an offer' },
    service.listOfferItems,
  );
  pdfRoute(app, { path, tags, config: read, summary: 'PDF of an offer' }, service.offerPdf);
};
