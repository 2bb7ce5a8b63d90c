import { randomBytes } from 'node:crypto'
import type {
  ProviderSubscription,
  SubscriptionHolder,
  TransitTicketing,
} from '../../connectors/types/public-transport.ts'
import type { Environment } from '../../contract/access.ts'
import { ApiError, isApiError } from '../../contract/errors.ts'
import type { Subscription } from '../../contract/public-transport.ts'
import { detail } from '../../platform/i18n/texts.ts'
import type { JobHandlers, Jobs, JobsLogger } from '../../platform/jobs.ts'
import type { PublicTransportRepo } from '../../store/public-transport-repo.ts'
import type { SubscriptionRow, TenantRow } from '../../store/schema.ts'
import { sameAsStored } from '../../store/unchanged.ts'
import { createFollowUps, jobCaller, notRecorded, recordLater, retryWrite } from '../after-confirm.ts'
import type { Publish } from '../event-publishing.ts'
import { checkDateOfBirth } from '../people.ts'
import type { Caller, CallProvider } from '../providers/calls.ts'
import { failIfNoProviderAnswered, providerOutcome } from '../providers/merged-pages.ts'
import { notFoundOrOtherEnvironment } from '../token-diagnosis.ts'
import type { PtProvider, PublicTransportStops } from './stops.ts'

const BUDGET_MS = 15_000

export const JOB_UNDO_SUBSCRIPTION = 'public-transport.undo-subscription'
export const JOB_RECORD_SUBSCRIPTION = 'public-transport.record-subscription'

type NewSubscription = Parameters<PublicTransportRepo['insertSubscription']>[0]

/**
 * A subscription the provider created but the service could not record: withdrawn at once. One the provider will not
 * withdraw (its minimum term has begun) is recorded instead, from `row`, so it shows in the tenant's list.
 */
interface UndoSubscription {
  tenantId: string
  environment: Environment
  providerId: string
  reference: string
  row: Omit<NewSubscription, 'createdAt' | 'updatedAt'>
}

/** A cancellation the provider made whose record is written later. */
interface RecordSubscription {
  subscriptionId: string
  tenantId: string
  environment: Environment
}

/** Subscription products (for example Deutschlandticket) and the tenant's subscriptions. Needs stored data. */
export function createPublicTransportSubscriptions(deps: {
  stops: PublicTransportStops
  callProvider: CallProvider
  repo: PublicTransportRepo
  jobs: Jobs
  tenants: { findTenant(id: string): Promise<TenantRow | undefined> }
  clock: () => Date
  log: JobsLogger
  /** public-transport.subscription.created and .cancelled, once recorded. */
  publish: Publish
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
      traveller: masked(record.holder),
      // Issue 21: the old name, beside the new one until the deprecation period ends.
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
    const wellFormed = /^sub_[A-Za-z0-9]{16}$/.test(id)
    const row = wellFormed ? await deps.repo.findSubscription(caller.tenant.id, caller.environment, id) : undefined
    if (!row) {
      throw await notFoundOrOtherEnvironment(
        'SUBSCRIPTION_NOT_FOUND',
        { subscriptionId: id },
        caller.environment,
        async (env) => wellFormed && (await deps.repo.findSubscription(caller.tenant.id, env, id)) !== undefined,
      )
    }
    const p = sellers(caller).find((x) => x.entry.id === row.providerId)
    if (!p)
      throw new ApiError('PROVIDER_ERROR', undefined, {
        providerId: row.providerId,
        reason: 'PROVIDER_NOT_AVAILABLE',
        retryable: false,
      })
    return { row, p }
  }

  /**
   * The stored copy brought in step with the provider's; written only when something changed (`updatedAt`), as a
   * compare-and-set on the row's version, so a cancellation is announced once (by the write that lands). A read that
   * loses to another write yields to it. After a cancellation (`afterCancel`) the write is retried over the newer row,
   * and when the store keeps failing a job writes it.
   */
  const refresh = async (
    caller: Caller,
    row: SubscriptionRow,
    fresh: ProviderSubscription,
    afterCancel = false,
  ): Promise<SubscriptionRow> => {
    let current = row
    for (let attempt = 0; attempt < 3; attempt++) {
      const stored = (current.record as { subscription?: unknown }).subscription
      if (fresh.status === current.status && sameAsStored(fresh, stored)) return current
      const record = { ...(current.record as object), subscription: fresh }
      const base = current
      const write = () =>
        deps.repo.updateSubscription(base.id, base.version, { status: fresh.status, record }, caller.now)
      let updated: SubscriptionRow | undefined
      if (!afterCancel) updated = await write()
      else {
        try {
          updated = await retryWrite(write)
        } catch (error) {
          deps.log.warn(
            { err: error, subscriptionId: row.id },
            'subscription cancellation not recorded; a job records it',
          )
          const job: RecordSubscription = {
            subscriptionId: row.id,
            tenantId: caller.tenant.id,
            environment: caller.environment,
          }
          await recordLater(followUp, JOB_RECORD_SUBSCRIPTION, { subscriptionId: row.id }, job, recordSubscription)
          return { ...base, status: fresh.status, record, updatedAt: caller.now }
        }
      }
      if (updated) {
        if (updated.status === 'CANCELLED' && base.status !== 'CANCELLED')
          await deps.publish(
            'public-transport.subscription.cancelled',
            caller.tenant,
            caller.environment,
            present(updated, fresh),
          )
        return updated
      }
      const latest = await deps.repo.findSubscription(caller.tenant.id, caller.environment, row.id)
      if (!latest) throw new ApiError('SUBSCRIPTION_NOT_FOUND', undefined, { subscriptionId: row.id })
      if (!afterCancel) return latest
      current = latest
    }
    return current
  }

  const followUp = createFollowUps({ jobs: deps.jobs, clock: deps.clock, log: deps.log })
  const sellerFor = (caller: Caller, providerId: string) => {
    const p = sellers(caller).find((x) => x.entry.id === providerId)
    if (!p) throw new ApiError('PROVIDER_ERROR', undefined, { providerId, reason: 'PROVIDER_NOT_AVAILABLE' })
    return p
  }

  async function recordSubscription(job: RecordSubscription) {
    const caller = await jobCaller(deps.tenants, job.tenantId, job.environment, deps.clock())
    const row = await deps.repo.findSubscription(job.tenantId, job.environment, job.subscriptionId)
    if (!row) return
    const p = sellerFor(caller, row.providerId)
    const fresh = await call(caller, p, 'getSubscription', (t, ctx) => t.getSubscription(row.providerReference, ctx))
    await refresh(caller, row, fresh)
  }

  /** Withdraws at the provider what could not be recorded; records it instead where the provider will not. */
  async function undoSubscription(job: UndoSubscription, lookUp = true) {
    if (lookUp && (await deps.repo.findSubscription(job.tenantId, job.environment, job.row.id))) return
    const caller = await jobCaller(deps.tenants, job.tenantId, job.environment, deps.clock())
    const p = sellerFor(caller, job.providerId)
    try {
      await call(caller, p, 'cancelSubscription', (t, ctx) => t.cancelSubscription(job.reference, ctx))
    } catch (error) {
      if (!isApiError(error)) throw error
      if (['NOT_FOUND', 'SUBSCRIPTION_ALREADY_CANCELLED', 'SUBSCRIPTION_EXPIRED'].includes(error.code)) return
      if (error.code !== 'SUBSCRIPTION_NOT_CANCELLABLE') throw error
      deps.log.warn({ subscriptionId: job.row.id }, 'subscription could not be withdrawn; recording it instead')
      const now = deps.clock()
      const row = await deps.repo.insertSubscription({ ...job.row, createdAt: now, updatedAt: now })
      // The client was told NOT_RECORDED; the subscription it has after all is announced.
      await deps.publish('public-transport.subscription.created', caller.tenant, caller.environment, present(row))
    }
  }

  /** The job handlers, by kind, for the app to register (services.ts). */
  const jobHandlers: JobHandlers = {
    [JOB_UNDO_SUBSCRIPTION]: (payload: UndoSubscription) => undoSubscription(payload),
    [JOB_RECORD_SUBSCRIPTION]: (payload: RecordSubscription) => recordSubscription(payload),
  }

  return {
    jobHandlers,
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
      input: { productId: string; provider?: string; traveller: SubscriptionHolder; startDate: string; pin?: string },
      caller: Caller,
    ) {
      requireStorage(caller)
      checkDateOfBirth(input.traveller.dateOfBirth, caller.now, 'traveller.dateOfBirth')
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
          provider: detail('SEVERAL_PROVIDERS_SELL', {
            productId: input.productId,
            providers: selling.map((s) => s.p.entry.id),
          }),
        })
      }
      const { p, products } = selling[0]
      const product = products.find((x) => x.productId === input.productId)!
      const created = await call(caller, p, 'subscribe', (t, ctx) =>
        t.subscribe(input.productId, input.traveller, input.startDate, input.pin, ctx),
      )
      const newRow = {
        id: `sub_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x').slice(0, 16)}`,
        tenantId: caller.tenant.id,
        environment: caller.environment,
        providerId: p.entry.id,
        providerReference: created.reference,
        productId: input.productId,
        status: created.status,
        // The service's clock, as every later write uses.
        createdAt: caller.now,
        updatedAt: caller.now,
        record: {
          // Stored under the old name (records written before issue 21 read as they are).
          holder: input.traveller,
          productName: product.name,
          providerName: p.entry.name,
          subscription: created,
        },
      }
      const row = await retryWrite(
        () => deps.repo.insertSubscription(newRow),
        () => deps.repo.findSubscription(caller.tenant.id, caller.environment, newRow.id),
      ).catch(async (error: unknown): Promise<never> => {
        deps.log.error(
          { err: error, providerId: p.entry.id, reference: created.reference },
          'subscription not recorded',
        )
        const job: UndoSubscription = {
          tenantId: caller.tenant.id,
          environment: caller.environment,
          providerId: p.entry.id,
          reference: created.reference,
          row: JSON.parse(JSON.stringify(newRow)),
        }
        await followUp(
          JOB_UNDO_SUBSCRIPTION,
          `undo_sub_${newRow.id}`,
          { ...job },
          {
            delayMs: 0,
            inline: () => undoSubscription(job, false),
          },
        )
        throw notRecorded({})
      })
      const subscription = present(row)
      await deps.publish('public-transport.subscription.created', caller.tenant, caller.environment, subscription)
      return subscription
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
      return present(await refresh(caller, row, fresh, true), fresh)
    },
  }
}

export type PublicTransportSubscriptions = ReturnType<typeof createPublicTransportSubscriptions>
