import { vehicleNotAvailable } from '../../connectors/refusals.ts'
import type { Registry } from '../../connectors/registry.ts'
import type { Provider } from '../../connectors/types/common.ts'
import {
  isMicromobilityConnector,
  type MicromobilityConnector,
  type ProviderMicroVehicle,
} from '../../connectors/types/micromobility.ts'
import { ApiError } from '../../contract/errors.ts'
import type { MicroSearchRequest, MicroVehicle } from '../../contract/micromobility.ts'
import { distanceMeters } from '../../platform/geo.ts'
import { detail } from '../../platform/i18n/texts.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import { type Caller, type CallProvider, eligibleProviders } from '../providers/calls.ts'
import { failIfNoProviderAnswered, mergedPage, providerOutcome } from '../providers/merged-pages.ts'
import { createFleetIndexCache } from './fleet-index.ts'
import type { VehicleTokens } from './vehicle-tokens.ts'

export interface VehiclesDeps {
  registry: Registry
  callProvider: CallProvider
  tokens: TokenCipher
  vehicleTokens: VehicleTokens
  timeoutMs: number
}

type MicroProvider = Provider & { connector: MicromobilityConnector }
/** A vehicle on a search page: its provider, its distance from the search point and its token (when it gets one). */
export interface PageHit {
  p: MicroProvider
  v: ProviderMicroVehicle
  d: number
  vehicleToken: string | undefined
}
export interface SearchPage {
  hits: PageHit[]
  tokenValidUntil: string
  pagination: { hasMore: boolean; nextCursor?: string }
  providers: ReturnType<typeof providerOutcome<'vehicles'>>[]
}
/** Cursors of this list (src/domain/token-diagnosis.ts). */
const cursorContext = (caller: Caller) => ({
  kind: 'micro-cursor' as const,
  tenantId: caller.tenant.id,
  environment: caller.environment,
})
const tripCapable = (p: MicroProvider) => !!p.connector.trips && p.connector.capabilities.operations.includes('TRIPS')

/** Vehicle search, QR and id look-ups over every micromobility provider of the tenant. */
export function createMicromobilityVehicles(deps: VehiclesDeps) {
  const indexFor = createFleetIndexCache()
  const fleet = (caller: Caller, p: MicroProvider) =>
    deps.callProvider(caller, p, 'fleet', deps.timeoutMs, (c, ctx) => c.fleet(ctx), true)

  /** Whether the vehicle gets a vehicleToken: search-only providers give deep links instead of a usable one. */
  const tokenFor = (p: MicroProvider, v: ProviderMicroVehicle) => v.isAvailable && tripCapable(p)

  // Built by assignment in the answer's order (a literal of conditional spreads cost more than the rest of a page).
  // `token` is the vehicle's token and its validity when it gets one (tokenFor).
  const present = (
    p: MicroProvider,
    v: ProviderMicroVehicle,
    distance: number | undefined,
    token: { vehicleToken: string; tokenValidUntil: string } | undefined,
  ): MicroVehicle => {
    const shown = {
      vehicleId: v.vehicleId,
      vehicle: { type: v.type, propulsionType: v.propulsionType, name: v.name },
      location: { latitude: v.latitude, longitude: v.longitude, lastUpdated: v.lastUpdated },
      isAvailable: v.isAvailable,
    } as MicroVehicle
    if (v.batteryPercent !== undefined) shown.batteryPercent = v.batteryPercent
    shown.provider = { id: p.entry.id, name: p.entry.name }
    if (v.pricingPlan) shown.pricingPlan = v.pricingPlan
    if (token) {
      shown.vehicleToken = token.vehicleToken
      shown.tokenValidUntil = token.tokenValidUntil
    }
    if (distance !== undefined) shown.distanceFromSearch = Math.round(distance)
    if (v.deepLinks) shown.deepLinks = v.deepLinks
    return shown
  }
  /** One vehicle with a fresh token (look-ups by QR code or id). */
  const presentOne = (caller: Caller, p: MicroProvider, v: ProviderMicroVehicle) =>
    present(p, v, undefined, tokenFor(p, v) ? deps.vehicleTokens.issue(caller, p.entry.id, v.vehicleId) : undefined)

  const providersOf = (caller: Caller, ids?: string[]) => {
    const all = eligibleProviders(deps.registry, caller, 'SEARCH', isMicromobilityConnector)
    if (!ids) return all
    const unknown = ids.filter((id) => !all.some((p) => p.entry.id === id))
    if (unknown.length > 0) {
      throw new ApiError('INVALID_REQUEST', undefined, {
        providers: detail('NOT_PROVIDERS_OF_TENANT', { unknown, available: all.map((p) => p.entry.id) }),
      })
    }
    return all.filter((p) => ids.includes(p.entry.id))
  }

  /** Finds a vehicle by a predicate across the tenant's providers (trip-capable first). */
  async function find(caller: Caller, match: (v: ProviderMicroVehicle) => boolean) {
    const providers = providersOf(caller).sort((a, b) => Number(tripCapable(b)) - Number(tripCapable(a)))
    for (const p of providers) {
      const snapshot = await fleet(caller, p).catch(() => undefined)
      const vehicle = snapshot?.vehicles.find(match)
      if (vehicle) return { provider: p, vehicle }
    }
    return undefined
  }

  return {
    /**
     * A search page before presentation: the vehicles shown with their providers, distances and tokens (POST
     * /micromobility writes its answer from these without building the presented objects, see search-body.ts).
     */
    async searchPage(request: MicroSearchRequest, caller: Caller): Promise<SearchPage> {
      const radius = request.radiusMeters ?? 500
      const limit = request.limit ?? 20
      const { latitude, longitude } = request.location
      const providers = providersOf(caller, request.providers)
      // Without filters the index needs no predicate, which halves its query time.
      const filtered = request.vehicleTypes !== undefined || request.minBatteryPercent !== undefined
      const accept = filtered
        ? (v: ProviderMicroVehicle) =>
            (!request.vehicleTypes || request.vehicleTypes.includes(v.type)) &&
            (request.minBatteryPercent === undefined ||
              // A vehicle without a battery reading (a human-powered bike) does not meet a battery minimum.
              (v.batteryPercent !== undefined && v.batteryPercent >= request.minBatteryPercent))
        : undefined
      type Hit = { p: MicroProvider; v: ProviderMicroVehicle; d: number }
      const merged = await mergedPage<Hit>({
        // Cursors in the compact format too (one per page; the general format's still open).
        tokens: deps.vehicleTokens.cursorCipher,
        context: cursorContext(caller),
        cursor: request.cursor,
        params: [latitude, longitude, radius, request.vehicleTypes, request.providers, request.minBatteryPercent],
        now: caller.now,
        limit,
        sources: providers.map((p) => ({
          id: p.entry.id,
          // The provider's nearest vehicles from its spatial index.
          fetch: async (want: number) => {
            const index = indexFor(p.entry.id, await fleet(caller, p))
            return index.within(latitude, longitude, radius, accept, want).map((i) => {
              const v = index.vehicles[i]
              return { p, v, d: distanceMeters({ latitude, longitude }, v) }
            })
          },
        })),
        compare: (a, b) => a.d - b.d || a.v.vehicleId.localeCompare(b.v.vehicleId),
      })
      const outcomes = merged.settled.map((answer, i) =>
        providerOutcome(
          providers[i],
          answer,
          caller.language,
          'vehicles',
          merged.items.filter((x) => x.p === providers[i]).length,
        ),
      )
      if (!request.cursor) failIfNoProviderAnswered(merged.settled, outcomes)
      // The page's tokens are sealed together (one call, one AES key schedule per key), for the vehicles shown only.
      const tokened = merged.items.filter(({ p, v }) => tokenFor(p, v))
      const { vehicleTokens, tokenValidUntil } = deps.vehicleTokens.issueAll(
        caller,
        tokened.map(({ p, v }) => [p.entry.id, v.vehicleId] as const),
      )
      let next = 0
      const hits: PageHit[] = merged.items.map(({ p, v, d }) => ({
        p,
        v,
        d,
        vehicleToken: tokenFor(p, v) ? vehicleTokens[next++] : undefined,
      }))
      return {
        hits,
        tokenValidUntil,
        pagination: merged.hasMore ? { hasMore: true, nextCursor: merged.nextCursor } : { hasMore: false },
        providers: outcomes,
      }
    },

    async search(request: MicroSearchRequest, caller: Caller) {
      const { hits, tokenValidUntil, pagination, providers } = await this.searchPage(request, caller)
      return {
        // Spec 2.1 names `results` among the list keys; the list is there only (a `vehicles` copy was dropped, issue 21).
        results: hits.map(({ p, v, d, vehicleToken }) =>
          present(p, v, d, vehicleToken !== undefined ? { vehicleToken, tokenValidUntil } : undefined),
        ),
        pagination,
        providers,
      }
    },

    async byQr(qrCode: string, caller: Caller): Promise<MicroVehicle> {
      const hit = await find(caller, (v) => v.qrCode === qrCode)
      if (!hit) throw new ApiError('NOT_FOUND', undefined, { resource: 'vehicle', qrCode })
      return presentOne(caller, hit.provider, hit.vehicle)
    },

    async byId(vehicleId: string, caller: Caller, vehicleToken?: string): Promise<MicroVehicle> {
      // The path may carry a vehicle token instead of an id: an expired one answers OFFER_EXPIRED (spec 4.4).
      if (deps.vehicleTokens.peek(caller, vehicleId))
        vehicleId = deps.vehicleTokens.open(caller, vehicleId, 'vehicleId').v
      if (vehicleToken) {
        const claim = deps.vehicleTokens.open(caller, vehicleToken)
        if (claim.v !== vehicleId)
          throw new ApiError('NOT_FOUND', undefined, { vehicleToken: detail('BELONGS_TO_ANOTHER_VEHICLE') })
      }
      const hit = await find(caller, (v) => v.vehicleId === vehicleId)
      if (!hit) throw new ApiError('NOT_FOUND', undefined, { resource: 'vehicle', vehicleId })
      return presentOne(caller, hit.provider, hit.vehicle)
    },

    /** The vehicle behind a token, as its provider reports it now (for trips). */
    async resolve(caller: Caller, providerId: string, vehicleId: string) {
      const p = providersOf(caller).find((x) => x.entry.id === providerId)
      if (!p) throw new ApiError('NOT_FOUND', undefined, { resource: 'vehicle', vehicleId })
      const snapshot = await fleet(caller, p)
      const vehicle = snapshot.vehicles.find((v) => v.vehicleId === vehicleId)
      // The token shows the provider offered the vehicle; gone from its fleet now, another trip has it (providers
      // list no vehicle in use) or the provider withdrew it: the offer is sold out, as the loser of a race for it is told.
      if (!vehicle) throw vehicleNotAvailable(undefined, { vehicleId })
      return { provider: p, vehicle }
    },

    async zones(query: ZoneAreaQuery & { provider?: string }, caller: Caller) {
      const all = eligibleProviders(deps.registry, caller, 'ZONES', isMicromobilityConnector)
      const providers = query.provider ? all.filter((p) => p.entry.id === query.provider) : all
      if (query.provider && providers.length === 0)
        throw new ApiError('NOT_FOUND', undefined, { resource: 'provider', provider: query.provider })
      const area = zoneArea(query)
      const answers = await Promise.allSettled(
        providers.map((p) => deps.callProvider(caller, p, 'zones', deps.timeoutMs, (c, ctx) => c.zones(ctx), true)),
      )
      const zonesOf = answers.map((answer, i) =>
        answer.status === 'fulfilled'
          ? answer.value
              .filter((z) => !area || intersects(z.geometry, area))
              .map((z) => ({ ...z, provider: { id: providers[i].entry.id, name: providers[i].entry.name } }))
          : [],
      )
      const outcomes = answers.map((answer, i) =>
        providerOutcome(providers[i], answer, caller.language, 'zones', zonesOf[i].length),
      )
      failIfNoProviderAnswered(answers, outcomes)
      return { zones: zonesOf.flat(), providers: outcomes }
    },
  }
}

type Box = [number, number, number, number]

/** Where zones are asked for: around a point, or in a bounding box (minLon,minLat,maxLon,maxLat). */
interface ZoneAreaQuery {
  latitude?: number
  longitude?: number
  radiusMeters?: number
  /** Alias of radiusMeters (as for car stations and stops); radiusMeters wins when both are sent. */
  radius?: number
  bbox?: string
}

function zoneArea(q: ZoneAreaQuery): Box | undefined {
  if (q.bbox) {
    const [minLon, minLat, maxLon, maxLat] = q.bbox.split(',').map(Number)
    if (
      ![minLon, minLat, maxLon, maxLat].every(Number.isFinite) ||
      minLon > maxLon ||
      minLat > maxLat ||
      Math.abs(minLat) > 90 ||
      Math.abs(maxLat) > 90
    ) {
      throw new ApiError('INVALID_LOCATION', undefined, {
        bbox: detail('BBOX_FORMAT', { format: 'minLon,minLat,maxLon,maxLat' }),
      })
    }
    return [minLon, minLat, maxLon, maxLat]
  }
  if (q.latitude === undefined && q.longitude === undefined) return undefined
  if (q.latitude === undefined || q.longitude === undefined) {
    throw new ApiError('INVALID_REQUEST', undefined, {
      [q.latitude === undefined ? 'latitude' : 'longitude']: detail('REQUIRED_WITH_OTHER_COORDINATE'),
    })
  }
  const r = q.radiusMeters ?? q.radius ?? 1000
  const dLat = r / 111_320
  const dLon = r / (111_320 * Math.max(0.01, Math.cos((q.latitude * Math.PI) / 180)))
  return [q.longitude - dLon, q.latitude - dLat, q.longitude + dLon, q.latitude + dLat]
}

/** Bounding-box overlap of a GeoJSON polygon geometry with an area: enough to pick the zones worth drawing. */
function intersects(geometry: { coordinates: unknown[] }, [minLon, minLat, maxLon, maxLat]: Box): boolean {
  let a = Number.POSITIVE_INFINITY
  let b = Number.POSITIVE_INFINITY
  let c = Number.NEGATIVE_INFINITY
  let d = Number.NEGATIVE_INFINITY
  const visit = (node: unknown): void => {
    if (Array.isArray(node) && typeof node[0] === 'number' && typeof node[1] === 'number') {
      a = Math.min(a, node[0])
      b = Math.min(b, node[1])
      c = Math.max(c, node[0])
      d = Math.max(d, node[1])
    } else if (Array.isArray(node)) node.forEach(visit)
  }
  visit(geometry.coordinates)
  return a <= maxLon && c >= minLon && b <= maxLat && d >= minLat
}

export type MicromobilityVehicles = ReturnType<typeof createMicromobilityVehicles>
