import { type Static, Type } from 'typebox'
import { OffsetPagination, OffsetQuery, responses } from '../../contract/common.ts'
import {
  Product,
  Subscription,
  SubscriptionCreate,
  type SubscriptionTraveller,
} from '../../contract/public-transport.ts'
import { providerOutcome } from '../../contract/shared.ts'
import { callerOf } from '../../http/caller.ts'
import { created, ok } from '../../http/envelope.ts'
import { PROVIDER_CALL } from '../../http/openapi/route-errors.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { renamed } from '../shared/aliases.ts'
import { doc, Id, read } from './route-shared.ts'
import type { PublicTransportRouteDeps } from './routes.ts'

/** Subscription products and subscriptions. */
export function publicTransportSubscriptionRoutes(app: TypedApp, deps: PublicTransportRouteDeps) {
  const { subscriptions, clock } = deps

  app.get(
    '/public-transport/subscriptions/products',
    {
      config: { ...read, errors: PROVIDER_CALL },
      schema: {
        operationId: 'listSubscriptionProducts',
        ...doc('Subscription products', 'For example the Deutschlandticket.'),
        response: responses(
          Type.Object({
            products: Type.Array(Product),
            providers: Type.Array(providerOutcome('products', 'Products of this provider')),
          }),
        ),
      },
    },
    async (request) => ok(request, await subscriptions.products(callerOf(request, clock))),
  )

  app.post(
    '/public-transport/subscriptions',
    {
      config: {
        permission: 'public-transport:booking:write',
        errors: [
          'INVALID_IDENTIFICATION',
          'PIN_REQUIRED',
          'DATA_RETENTION_NONE',
          'PRODUCT_NOT_AVAILABLE',
          ...PROVIDER_CALL,
        ],
      },
      schema: {
        operationId: 'createSubscription',
        ...doc(
          'Subscribe',
          "Errors: 422 PRODUCT_NOT_AVAILABLE (a product unknown to the tenant's providers, reason UNKNOWN_PRODUCT, or not sold, reason EMPLOYER_ONLY), 400 INVALID_IDENTIFICATION (identification missing or invalid where the product needs one), 400 PIN_REQUIRED, 400 INVALID_DATE_RANGE-like start dates as INVALID_REQUEST, 403 DATA_RETENTION_NONE under retention NONE. 503 SERVICE_UNAVAILABLE with `details.reason: NOT_RECORDED` when the provider created the subscription but the service could not record it: it is withdrawn at the provider, so subscribe again.",
        ),
        body: SubscriptionCreate,
        response: responses(Subscription, 201),
      },
    },
    async (request, reply) => {
      const { holder: _old, ...body } = request.body
      const traveller = renamed<Static<typeof SubscriptionTraveller>>(request.body, 'traveller', 'holder')
      const subscription = await subscriptions.create({ ...body, traveller }, callerOf(request, clock))
      return created(request, reply, subscription.subscriptionId, subscription)
    },
  )

  app.get(
    '/public-transport/subscriptions',
    {
      config: { permission: 'public-transport:booking:read', errors: ['DATA_RETENTION_NONE'] },
      schema: {
        operationId: 'listSubscriptions',
        ...doc('List subscriptions'),
        querystring: OffsetQuery,
        response: responses(Type.Object({ subscriptions: Type.Array(Subscription), pagination: OffsetPagination })),
      },
    },
    async (request) =>
      ok(
        request,
        await subscriptions.list(request.query.page ?? 0, request.query.limit ?? 20, callerOf(request, clock)),
      ),
  )

  app.get(
    '/public-transport/subscriptions/:subscriptionId',
    {
      config: {
        permission: 'public-transport:booking:read',
        errors: ['SUBSCRIPTION_NOT_FOUND', 'DATA_RETENTION_NONE', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'getSubscription',
        ...doc('Read a subscription', '404 SUBSCRIPTION_NOT_FOUND for an unknown id.'),
        params: Id('subscriptionId'),
        response: responses(Subscription),
      },
    },
    async (request) =>
      ok(request, await subscriptions.get(request.params.subscriptionId as string, callerOf(request, clock))),
  )

  app.post(
    '/public-transport/subscriptions/:subscriptionId/cancel',
    {
      config: {
        permission: 'public-transport:booking:write',
        errors: [
          'SUBSCRIPTION_NOT_FOUND',
          'DATA_RETENTION_NONE',
          'SUBSCRIPTION_ALREADY_CANCELLED',
          'SUBSCRIPTION_NOT_CANCELLABLE',
          'SUBSCRIPTION_EXPIRED',
          ...PROVIDER_CALL,
        ],
      },
      schema: {
        operationId: 'cancelSubscription',
        ...doc(
          'Cancel a subscription',
          '409 SUBSCRIPTION_ALREADY_CANCELLED, 422 SUBSCRIPTION_NOT_CANCELLABLE (minimum term), 422 SUBSCRIPTION_EXPIRED.',
        ),
        params: Id('subscriptionId'),
        response: responses(Subscription),
      },
    },
    async (request) =>
      ok(request, await subscriptions.cancel(request.params.subscriptionId as string, callerOf(request, clock))),
  )
}
