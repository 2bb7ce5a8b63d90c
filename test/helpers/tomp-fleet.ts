import { readFileSync } from 'node:fs'
import { hash32, seededRandom } from '../../src/connectors/sandbox/common.ts'
import { pointInDisc } from '../../src/connectors/sandbox/micro/geometry.ts'
import {
  ALEXANDERPLATZ,
  BERLIN_CENTRE,
  FLEET_RADIUS_M,
  HAUPTBAHNHOF,
  parkingForbidden,
  zonesOf,
} from '../../src/connectors/sandbox/micro/zones.ts'
import type { Coordinates } from '../../src/contract/shared.ts'
import { distanceMeters } from '../../src/platform/geo.ts'

/**
 * What the test TOMP operator publishes: the TOMP sample operator (fixtures of the connector: information, meta, the
 * per-kilometer pricing plan, regions without geometry) plus a generated free-floating Berlin fleet of e-scooters,
 * bikes, e-bikes, cargo bikes and e-mopeds with per-minute plans, and regions with geometry (the sandbox's Berlin
 * zones, so the same places are allowed and forbidden). Deterministic per seed.
 */

const FIXTURES = new URL('../../src/connectors/tomp/fixtures/', import.meta.url)
export const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'))

export interface AssetTypeDef {
  id: string
  assetClass: string
  assetSubClass?: string
  name: string
  propulsion: 'ELECTRIC' | 'MUSCLE'
  planId: string
  share: number
}

export const ASSET_TYPES: AssetTypeDef[] = [
  {
    id: 'escooter',
    assetClass: 'STEP',
    name: 'FreeBike E-Scooter',
    propulsion: 'ELECTRIC',
    planId: 'escooter-minute',
    share: 0.55,
  },
  {
    id: 'ebike',
    assetClass: 'BICYCLE',
    name: 'FreeBike E-Bike',
    propulsion: 'ELECTRIC',
    planId: 'ebike-minute',
    share: 0.15,
  },
  {
    id: 'bike',
    assetClass: 'BICYCLE',
    name: 'FreeBike Classic',
    propulsion: 'MUSCLE',
    planId: 'bike-hour',
    share: 0.15,
  },
  {
    id: 'cargo',
    assetClass: 'BICYCLE',
    assetSubClass: 'cargo bike',
    name: 'FreeBike Cargo',
    propulsion: 'ELECTRIC',
    planId: 'cargo-minute',
    share: 0.08,
  },
  {
    id: 'emoped',
    assetClass: 'MOPED',
    name: 'FreeBike E-Moped',
    propulsion: 'ELECTRIC',
    planId: 'emoped-minute',
    share: 0.07,
  },
]

const fare = (unlock: number, rate: number, unitType: 'MINUTE' | 'HOUR', cap?: number) => ({
  estimated: false,
  class: 'FARE',
  parts: [
    { amount: unlock, currencyCode: 'EUR', type: 'FIXED' },
    { amount: rate, currencyCode: 'EUR', type: 'FLEX', unitType, units: 1 },
    ...(cap === undefined ? [] : [{ amount: cap, currencyCode: 'EUR', type: 'MAX' }]),
  ],
})
const plan = (planId: string, name: string, f: ReturnType<typeof fare>) => ({
  planId,
  name,
  fare: f,
  isTaxable: false,
  description: `${name}: unlock, then by time`,
})

/** The sample's per-kilometer plan (a lone object in the fixture) and one per-time plan per asset type. */
export const PRICING_PLANS = [
  fixture('pricing-plans.json'),
  plan('escooter-minute', 'E-Scooter', fare(1, 0.25, 'MINUTE')),
  plan('ebike-minute', 'E-Bike', fare(1, 0.2, 'MINUTE')),
  plan('bike-hour', 'Classic', fare(1, 6, 'HOUR')),
  plan('cargo-minute', 'Cargo', fare(1.5, 0.25, 'MINUTE')),
  plan('emoped-minute', 'E-Moped', fare(1.5, 0.3, 'MINUTE', 30)),
]

export interface AssetState {
  id: string
  type: AssetTypeDef
  latitude: number
  longitude: number
  batteryPercent?: number
  /** In the workshop. */
  maintenance: boolean
}

function parkingSpot(anchor: Coordinates, radius: number, random: () => number): Coordinates {
  for (let attempt = 0; attempt < 50; attempt++) {
    const point = pointInDisc(anchor, radius, random)
    if (distanceMeters(point, BERLIN_CENTRE) <= FLEET_RADIUS_M && !parkingForbidden(point)) return point
  }
  return anchor
}

/** `size` assets (ids FB-0001 ...), each depending only on the seed and its number. */
export function generateAssets(seed: string, size: number): AssetState[] {
  const assets: AssetState[] = []
  for (let n = 1; n <= size; n++) {
    const id = `FB-${String(n).padStart(4, '0')}`
    const random = seededRandom(hash32(`${seed}:${id}`))
    let pick = random()
    let type = ASSET_TYPES[0]
    for (const candidate of ASSET_TYPES) {
      type = candidate
      pick -= candidate.share
      if (pick < 0) break
    }
    const where = random()
    const anchor = where < 0.25 ? ALEXANDERPLATZ : where < 0.4 ? HAUPTBAHNHOF : BERLIN_CENTRE
    const spot = parkingSpot(anchor, anchor === BERLIN_CENTRE ? FLEET_RADIUS_M : 450, random)
    const low = random() < 0.1
    const charge = low ? 5 + Math.floor(random() * 15) : 20 + Math.floor(random() * 81)
    assets.push({
      id,
      type,
      latitude: spot.latitude,
      longitude: spot.longitude,
      ...(type.propulsion === 'ELECTRIC' ? { batteryPercent: charge } : {}),
      maintenance: random() < 0.03,
    })
  }
  return assets
}

const SPEEDS = { SERVICE_AREA: 'OPERATING', NO_PARKING: 'NO_PARKING', SLOW: 'SPEEDLIMIT', NO_RIDING: 'NO_ACCESS' }

/** The sample regions (no geometry) and the Berlin zones as TOMP regions, names in German or English. */
export function regions(language: string) {
  const berlin = zonesOf('scoot', language).map((zone) => {
    const type = SPEEDS[zone.kind as keyof typeof SPEEDS] ?? 'OPERATING'
    return {
      regionId: zone.id,
      name: zone.name,
      type,
      ...(type === 'SPEEDLIMIT' ? { typeUnit: 'KMPH', typeValue: zone.rules[0].maximumSpeedKph } : {}),
      serviceArea: zone.geometry,
    }
  })
  return [...(fixture('regions.json') as unknown[]), ...berlin]
}
