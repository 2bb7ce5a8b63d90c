import type { CarCategory, FuelType, InsuranceCoverage, RefillPolicy, Vehicle } from '../../../contract/cars.ts'

/** What a car burns: litres (petrol, diesel, LPG), kWh (electricity) or kg (hydrogen, CNG) per 100 km. */
export type EnergyCarrier = 'petrol' | 'diesel' | 'lpg' | 'electricity' | 'hydrogen' | 'cng'

export interface SandboxVehicleModel {
  id: string
  vehicle: Vehicle
  /** Gross daily rate in euro cents at German stations (VAT included). */
  dailyRate: number
  /** Car sharing: gross rate per started hour; each day is capped at `dailyRate`. */
  hourlyRate?: number
  insurance: InsuranceCoverage
  refillPolicy: RefillPolicy
  /** Included kilometres per rental day; absent: unlimited mileage. */
  includedKmPerDay?: number
  /** Cents per kilometre beyond the included ones. */
  extraKmRate: number
  energy: { carrier: EnergyCarrier; per100km: number }[]
}

export type Terms = Omit<SandboxVehicleModel, 'id' | 'vehicle'>
type Features = Vehicle['features']

export const KIT: Features = ['AIR_CONDITIONING', 'BLUETOOTH', 'USB_CHARGING']
export const NAV: Features = [...KIT, 'GPS_NAVIGATION', 'APPLE_CARPLAY']

/**
 * One model: [make, model, year], [category, fuel, transmission], [seats, doors, luggage], g CO2/km, features.
 * `exact` marks a guaranteed vehicle (isConfirmed); `calculated` a platform-derived CO2 figure.
 */
export function car(
  id: string,
  [make, name, year]: [string, string, number],
  [category, fuelType, transmission]: [CarCategory, FuelType, Vehicle['transmission']],
  [seats, doors, luggageCapacity]: [number, number, number],
  co2Emissions: number,
  features: Features,
  terms: Terms,
  flags: { exact?: boolean; calculated?: boolean } = {},
): SandboxVehicleModel {
  return {
    id,
    vehicle: {
      make,
      model: name,
      year,
      category,
      seats,
      doors,
      fuelType,
      transmission,
      luggageCapacity,
      features,
      imageUrl: `https://img.sandbox.example/cars/${id}.webp`,
      isConfirmed: flags.exact ?? false,
      co2Emissions,
      co2Source: flags.calculated ? 'CALCULATED' : 'PROVIDER',
    },
    ...terms,
  }
}

export const fuel = (carrier: EnergyCarrier, per100km: number) => [{ carrier, per100km }]
const full = (dailyRate: number, insurance: InsuranceCoverage, energy: Terms['energy']): Terms => ({
  dailyRate,
  insurance,
  refillPolicy: 'FULL_TO_FULL',
  extraKmRate: 0,
  energy,
})

/**
 * sandbox-rent: every CarCategory, FuelType and Transmission appears at least once (the conformance suite checks),
 * and every RefillPolicy. Vehicles are "or similar" examples of their group unless `exact`.
 */
export const RENT_FLEET: SandboxVehicleModel[] = [
  car(
    'fiat500',
    ['Fiat', '500 Hybrid', 2023],
    ['ECONOMY', 'HYBRID', 'MANUAL'],
    [4, 3, 1],
    119,
    [...KIT, 'APPLE_CARPLAY'],
    full(3900, 'BASIC', fuel('petrol', 5.3)),
  ),
  car(
    'polo',
    ['Volkswagen', 'Polo 1.0 TSI', 2024],
    ['ECONOMY', 'PETROL', 'MANUAL'],
    [5, 5, 2],
    128,
    [...KIT, 'APPLE_CARPLAY', 'ISOFIX'],
    full(4200, 'BASIC', fuel('petrol', 5.6)),
  ),
  car(
    'sandero',
    ['Dacia', 'Sandero ECO-G 100', 2023],
    ['ECONOMY', 'LPG', 'MANUAL'],
    [5, 5, 2],
    108,
    ['AIR_CONDITIONING', 'BLUETOOTH', 'ISOFIX'],
    {
      ...full(3500, 'BASIC', fuel('lpg', 7.4)),
      refillPolicy: 'SAME_AS_PICKUP',
      includedKmPerDay: 250,
      extraKmRate: 25,
    },
    { calculated: true },
  ),
  car(
    'golf',
    ['Volkswagen', 'Golf 2.0 TDI', 2024],
    ['COMPACT', 'DIESEL', 'MANUAL'],
    [5, 5, 3],
    118,
    [...NAV, 'ISOFIX'],
    full(5200, 'STANDARD', fuel('diesel', 4.6)),
  ),
  car(
    'leon',
    ['SEAT', 'Leon 1.5 TGI (CNG)', 2022],
    ['COMPACT', 'OTHER', 'MANUAL'],
    [5, 5, 2],
    99,
    [...KIT, 'GPS_NAVIGATION'],
    {
      ...full(4600, 'STANDARD', fuel('cng', 3.6)),
      refillPolicy: 'SAME_AS_PICKUP',
      includedKmPerDay: 300,
      extraKmRate: 22,
    },
    { calculated: true },
  ),
  car(
    'id3',
    ['Volkswagen', 'ID.3 Pro', 2024],
    ['COMPACT', 'ELECTRIC', 'AUTOMATIC'],
    [5, 5, 3],
    0,
    [...NAV, 'ISOFIX', 'WIFI_HOTSPOT'],
    { ...full(5600, 'STANDARD', fuel('electricity', 15.8)), refillPolicy: 'SAME_AS_PICKUP' },
  ),
  car(
    'corolla',
    ['Toyota', 'Corolla Touring Sports 1.8 Hybrid', 2023],
    ['COMPACT', 'HYBRID', 'AUTOMATIC'],
    [5, 5, 4],
    101,
    [...NAV, 'ROOF_LUGGAGE'],
    full(5400, 'STANDARD', fuel('petrol', 4.5)),
  ),
  car(
    'octavia',
    ['Škoda', 'Octavia Combi 2.0 TDI DSG', 2024],
    ['MIDSIZE', 'DIESEL', 'AUTOMATIC'],
    [5, 5, 5],
    124,
    [...NAV, 'ISOFIX', 'BIKE_RACK'],
    full(6400, 'STANDARD', fuel('diesel', 4.9)),
  ),
  car(
    'passat',
    ['Volkswagen', 'Passat Variant eHybrid', 2024],
    ['MIDSIZE', 'PLUGIN_HYBRID', 'AUTOMATIC'],
    [5, 5, 5],
    31,
    [...NAV, 'ISOFIX', 'WIFI_HOTSPOT'],
    full(7200, 'COMPREHENSIVE', [
      { carrier: 'petrol', per100km: 2.1 },
      { carrier: 'electricity', per100km: 11.5 },
    ]),
  ),
  car(
    'bmw5',
    ['BMW', '520d Touring', 2024],
    ['FULLSIZE', 'DIESEL', 'AUTOMATIC'],
    [5, 5, 5],
    139,
    [...NAV, 'ISOFIX', 'WIFI_HOTSPOT', 'WINTER_TIRES'],
    full(9800, 'COMPREHENSIVE', fuel('diesel', 5.3)),
  ),
  car(
    'mirai',
    ['Toyota', 'Mirai', 2023],
    ['FULLSIZE', 'HYDROGEN', 'AUTOMATIC'],
    [5, 4, 3],
    0,
    NAV,
    {
      ...full(8900, 'FULL_COVERAGE', fuel('hydrogen', 0.84)),
      refillPolicy: 'FUEL_INCLUDED',
      includedKmPerDay: 400,
      extraKmRate: 30,
    },
    { exact: true },
  ),
  car(
    'sclass',
    ['Mercedes-Benz', 'S 450 4MATIC', 2024],
    ['LUXURY', 'PETROL', 'AUTOMATIC'],
    [5, 4, 4],
    196,
    [...NAV, 'WIFI_HOTSPOT', 'FOUR_WHEEL_DRIVE', 'WINTER_TIRES'],
    { ...full(24900, 'PREMIUM', fuel('petrol', 8.6)), includedKmPerDay: 300, extraKmRate: 59 },
    { exact: true },
  ),
  car(
    'tiguan',
    ['Volkswagen', 'Tiguan 2.0 TDI 4MOTION', 2024],
    ['SUV', 'DIESEL', 'AUTOMATIC'],
    [5, 5, 5],
    163,
    [...KIT, 'GPS_NAVIGATION', 'ISOFIX', 'FOUR_WHEEL_DRIVE', 'WINTER_TIRES', 'SKI_RACK', 'BIKE_RACK'],
    full(8400, 'COMPREHENSIVE', fuel('diesel', 6.2)),
  ),
  car(
    'modely',
    ['Tesla', 'Model Y Long Range', 2024],
    ['SUV', 'ELECTRIC', 'AUTOMATIC'],
    [5, 5, 5],
    0,
    [...KIT, 'GPS_NAVIGATION', 'WIFI_HOTSPOT', 'FOUR_WHEEL_DRIVE', 'ISOFIX'],
    { ...full(9200, 'COMPREHENSIVE', fuel('electricity', 16.9)), refillPolicy: 'SAME_AS_PICKUP' },
  ),
  car(
    'transporter',
    ['Volkswagen', 'Transporter T6.1 Kombi', 2023],
    ['VAN', 'DIESEL', 'MANUAL'],
    [9, 4, 8],
    199,
    ['AIR_CONDITIONING', 'BLUETOOTH', 'GPS_NAVIGATION', 'ISOFIX', 'ROOF_LUGGAGE'],
    { ...full(11900, 'STANDARD', fuel('diesel', 7.6)), includedKmPerDay: 300, extraKmRate: 35 },
  ),
  car(
    'evito',
    ['Mercedes-Benz', 'eVito Tourer', 2023],
    ['VAN', 'ELECTRIC', 'AUTOMATIC'],
    [8, 4, 6],
    0,
    [...KIT, 'GPS_NAVIGATION', 'ISOFIX', 'ACCESSIBILITY_SUPPORT', 'INFANT_SEAT', 'CHILD_SEAT', 'BOOSTER_SEAT'],
    {
      ...full(13900, 'FULL_COVERAGE', fuel('electricity', 26.1)),
      refillPolicy: 'FUEL_INCLUDED',
      includedKmPerDay: 250,
      extraKmRate: 35,
    },
  ),
  car(
    'mx5',
    ['Mazda', 'MX-5 2.0 Skyactiv-G', 2023],
    ['SPORTS', 'PETROL', 'MANUAL'],
    [2, 2, 1],
    155,
    [...KIT, 'APPLE_CARPLAY'],
    { ...full(11500, 'COMPREHENSIVE', fuel('petrol', 6.8)), includedKmPerDay: 300, extraKmRate: 39 },
  ),
  car(
    'porsche911',
    ['Porsche', '911 Carrera', 2024],
    ['SPORTS', 'PETROL', 'AUTOMATIC'],
    [4, 2, 1],
    241,
    [...NAV, 'WINTER_TIRES'],
    { ...full(39900, 'PREMIUM', fuel('petrol', 10.3)), includedKmPerDay: 200, extraKmRate: 89 },
    { exact: true },
  ),
]
