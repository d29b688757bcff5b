import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getRoute, listRoute } from '../../shared/route-builders.js';
import { lineItemsRoute, pdfRoute } from '../outgoing-invoices/outgoing-invoices.public.js';
import { Offer, OfferListQuery } from './offers.schemas.js';
import * as service from './offers.service.js';

const path = '/offers';
const tags = ['Offers'];
const read = { scopes: ['offer:read'] };

export const offersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    {
      path: '/offers',
      tags,
      config: { ...read, pageCache: true },
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
      config: { ...read, pageCache: true },
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
};
