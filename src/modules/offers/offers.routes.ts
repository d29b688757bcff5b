import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { sendBytes } from '../../shared/http.js';
import { listResponse } from '../../shared/paging.js';
import { Data, IdParams, List, PagingQuery, problemResponse } from '../../shared/schemas.js';
import { Binary } from '../files/files.public.js';
import { LineItem } from '../outgoing-invoices/outgoing-invoices.public.js';
import { Offer, OfferListQuery } from './offers.schemas.js';
import * as service from './offers.service.js';

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

  app.get(
    '/offers/:id/line-items',
    {
      config: read,
      schema: {
        tags,
        summary: 'Line items of an offer',
        params: IdParams,
        querystring: Type.Object(PagingQuery, { additionalProperties: false }),
        response: { 200: List(LineItem) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listOfferItems(app.db, req.auth, req.params.id, req.query),
        same,
      ),
  );

  app.get(
    '/offers/:id/pdf',
    {
      config: read,
      schema: {
        tags,
        summary: 'PDF of an offer',
        params: IdParams,
        response: {
          200: Binary('The PDF', 'application/pdf'),
          206: Binary('A byte range', 'application/pdf'),
          416: problemResponse('Range not satisfiable'),
        },
      },
    },
    async (req, reply) => {
      const pdf = await service.offerPdf(app.db, req.auth, req.params.id);
      return sendBytes(req, reply, { ...pdf, contentType: 'application/pdf' });
    },
  );
};
