import { randomBytes } from 'node:crypto'
import type { Subscription } from '../../api/public-transport/schemas.ts'
import type { ProviderSubscription, SubscriptionHolder, TransitTicketing } from '../../connectors/types.ts'
import { ApiError } from '../../http/errors.ts'
import type { PublicTransportRepo } from '../../store/public-transport-repo.ts'
import type { SubscriptionRow } from '../../store/schema.ts'
import { sameAsStored } from '../../store/unchanged.ts'
import { checkDateOfBirth } from '../people.ts'
import type { Caller, CallProvider } from '../providers/calls.ts'
import { failIfNoProviderAnswered, providerOutcome } from '../providers/merged-pages.ts'
import type { PtProvider, PublicTransportStops } from './stops.ts'

const BUDGET_MS = 15_000

/** Subscription products (for example Deutschlandticket) and the tenant's subscriptions. Needs stored data. */
export function publicTransportSubscriptions(deps: {
  stops: PublicTransportStops
  callProvider: CallProvider
  repo: PublicTransportRepo
}) {
  const sellers = (caller: Caller) =>
    deps.stops
      .providersOf(caller, 'STOPS')
      .filter((p) => p.connector.ticketing && p.connector.capabilities.operations.includes('SUBSCRIPTIONS'))
  const call = <T>(
    caller: Caller,
    p: PtProvider,
    op: string,
    fn: (t: TransitTicketing, ctx: Parameters<TransitTicketing['products']>[0]) => Promise<T>,
  ) =>
    deps.callProvider(
      caller,
      p,
      op,
      BUDGET_MS,
      (c, ctx) => fn(c.ticketing!, ctx),
      op === 'products' || op === 'getSubscription',
    )
  const requireStorage = (caller: Caller) => {
    if (caller.tenant.dataRetention === 'NONE')
      throw new ApiError('DATA_RETENTION_NONE', undefined, { reason: 'SUBSCRIPTIONS_NEED_STORED_DATA' })
  }
  const masked = (holder: SubscriptionHolder): SubscriptionHolder =>
    holder.identification
      ? {
          ...holder,
          identification: { ...holder.identification, number: `****${holder.identification.number.slice(-4)}` },
        }
      : holder

  const present = (row: SubscriptionRow, fresh?: ProviderSubscription): Subscription => {
    const record = row.record as {
      holder: SubscriptionHolder
      productName: string
      providerName: string
      subscription: ProviderSubscription
    }
    const s = fresh ?? record.subscription
    return {
      subscriptionId: row.id,
      status: s.status,
      provider: { id: row.providerId, name: record.providerName },
      providerReference: s.reference,
      productId: row.productId,
      productName: record.productName,
      holder: masked(record.holder),
      price: s.price,
      startDate: s.startDate,
      ...(s.endDate ? { endDate: s.endDate } : {}),
      ...(s.nextBillingDate ? { nextBillingDate: s.nextBillingDate } : {}),
      ...(s.cancelledAt ? { cancelledAt: new Date(s.cancelledAt).toISOString() } : {}),
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    }
  }

  async function load(caller: Caller, id: string) {
    requireStorage(caller)
    const row = /^sub_[A-Za-z0-9]{16}$/.test(id)
      ? await deps.repo.findSubscription(caller.tenant.id, caller.environment, id)
      : undefined
    if (!row) throw new ApiError('SUBSCRIPTION_NOT_FOUND', undefined, { subscriptionId: id })
    const p = sellers(caller).find((x) => x.entry.id === row.providerId)
    if (!p)
      throw new ApiError('PROVIDER_ERROR', undefined, {
        providerId: row.providerId,
        reason: 'PROVIDER_NOT_AVAILABLE',
        retryable: false,
      })
    return { row, p }
  }

  /** The stored copy brought in step with the provider's; written only when something changed (`updatedAt`). */
  const refresh = async (caller: Caller, row: SubscriptionRow, fresh: ProviderSubscription) => {
    const stored = (row.record as { subscription?: unknown }).subscription
    if (fresh.status === row.status && sameAsStored(fresh, stored)) return row
    const record = { ...(row.record as object), subscription: fresh }
    return (await deps.repo.updateSubscription(row.id, { status: fresh.status, record }, caller.now))!
  }

  return {
    async products(caller: Caller) {
      const providers = sellers(caller)
      const answers = await Promise.allSettled(
        providers.map((p) => call(caller, p, 'products', (t, ctx) => t.products(ctx))),
      )
      const outcomes = answers.map((a, i) =>
        providerOutcome(providers[i], a, caller.language, 'products', a.status === 'fulfilled' ? a.value.length : 0),
      )
      failIfNoProviderAnswered(answers, outcomes)
      return {
        products: answers.flatMap((a, i) =>
          a.status === 'fulfilled'
            ? a.value.map((product) => ({
                ...product,
                provider: { id: providers[i].entry.id, name: providers[i].entry.name },
              }))
            : [],
        ),
        providers: outcomes,
      }
    },

    async create(
      input: { productId: string; provider?: string; holder: SubscriptionHolder; startDate: string; pin?: string },
      caller: Caller,
    ) {
      requireStorage(caller)
      checkDateOfBirth(input.holder.dateOfBirth, caller.now, 'holder.dateOfBirth')
      const candidates = sellers(caller).filter((p) => !input.provider || p.entry.id === input.provider)
      const answers = await Promise.allSettled(
        candidates.map((p) => call(caller, p, 'products', (t, ctx) => t.products(ctx))),
      )
      const offers = candidates.flatMap((p, i) => {
        const answer = answers[i]
        return answer.status === 'fulfilled' ? [{ p, products: answer.value }] : []
      })
      const selling = offers.filter((o) => o.products.some((x) => x.productId === input.productId))
      // A provider that did not answer may sell it: its failure is the answer, not an unknown product.
      const failed = answers.find((a) => a.status === 'rejected')
      if (selling.length === 0 && failed) throw failed.reason
      // A product no provider of the tenant sells is not available to it (PRODUCT_NOT_AVAILABLE, not a 404 route).
      if (selling.length === 0)
        throw new ApiError('PRODUCT_NOT_AVAILABLE', undefined, {
          productId: input.productId,
          reason: 'UNKNOWN_PRODUCT',
        })
      if (selling.length > 1) {
        throw new ApiError('INVALID_REQUEST', undefined, {
          provider: `several providers sell ${input.productId}: ${selling.map((s) => s.p.entry.id).join(', ')}`,
        })
      }
      const { p, products } = selling[0]
      const product = products.find((x) => x.productId === input.productId)!
      const created = await call(caller, p, 'subscribe', (t, ctx) =>
        t.subscribe(input.productId, input.holder, input.startDate, input.pin, ctx),
      )
      const row = await deps.repo.insertSubscription({
        id: `sub_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x').slice(0, 16)}`,
        tenantId: caller.tenant.id,
        environment: caller.environment,
        providerId: p.entry.id,
        providerReference: created.reference,
        productId: input.productId,
        status: created.status,
        record: {
          holder: input.holder,
          productName: product.name,
          providerName: p.entry.name,
          subscription: created,
        } as unknown as Record<string, unknown>,
      })
      return present(row)
    },

    async list(page: number, limit: number, caller: Caller) {
      requireStorage(caller)
      const { rows, total } = await deps.repo.listSubscriptions(
        caller.tenant.id,
        caller.environment,
        page * limit,
        limit,
      )
      return { subscriptions: rows.map((row) => present(row)), pagination: { total, currentPage: page, limit } }
    },

    async get(id: string, caller: Caller) {
      const { row, p } = await load(caller, id)
      const fresh = await call(caller, p, 'getSubscription', (t, ctx) => t.getSubscription(row.providerReference, ctx))
      return present(await refresh(caller, row, fresh), fresh)
    },

    async cancel(id: string, caller: Caller) {
      const { row, p } = await load(caller, id)
      const fresh = await call(caller, p, 'cancelSubscription', (t, ctx) =>
        t.cancelSubscription(row.providerReference, ctx),
      )
      return present(await refresh(caller, row, fresh), fresh)
    },
  }
}

export type PublicTransportSubscriptions = ReturnType<typeof publicTransportSubscriptions>
