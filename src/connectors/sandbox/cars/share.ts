import { car, fuel, KIT, NAV, type SandboxVehicleModel, type Terms } from './fleet.ts'
import { BERLIN, H24, type Localized, type SandboxStation } from './stations.ts'

/** sandbox-share's own data: car-sharing spots around Berlin and the exact cars parked there. */

const SHARE_INFO = (street: string): Localized => ({
  en: `Reserved Sandbox Share parking bays in ${street}; unlock the car with the app.`,
  de: `Reservierte Sandbox-Share-Stellplätze in der ${street}; das Auto öffnen Sie mit der App.`,
  fr: `Places réservées Sandbox Share, ${street} ; ouvrez la voiture avec l’appli.`,
})

const share = (
  id: string,
  name: string,
  street: string,
  postalCode: string,
  latitude: number,
  longitude: number,
  fleet: Record<string, number>,
): SandboxStation => ({
  id,
  name: { en: `Sandbox Share ${name}` },
  type: 'CITY',
  address: { street, postalCode, city: BERLIN, countryCode: 'DE' },
  coordinates: { latitude, longitude },
  operatingHours: H24,
  additionalInfo: SHARE_INFO(street.replace(/ \d.*$/, '')),
  fleet,
})

/** sandbox-share: car-sharing spots in Berlin neighbourhoods, open around the clock. */
export const SHARE_STATIONS: SandboxStation[] = [
  share('kollwitz', 'Kollwitzplatz', 'Kollwitzstraße 50', '10405', 52.5362, 13.4176, { eup: 2, id3s: 1, mini: 1 }),
  share('rosenthal', 'Rosenthaler Platz', 'Weinbergsweg 1', '10119', 52.5295, 13.4015, { eup: 1, mini: 1, polos: 1 }),
  share('bergmann', 'Bergmannkiez', 'Bergmannstraße 5', '10961', 52.4895, 13.3937, { eup: 1, id3s: 1, buzz: 1 }),
  share('boxhagen', 'Boxhagener Platz', 'Krossener Straße 23', '10245', 52.5104, 13.4593, {
    id3s: 1,
    polos: 1,
    ix1: 1,
  }),
  share('weser', 'Neukölln Weserstraße', 'Weserstraße 58', '12045', 52.4876, 13.435, { eup: 2, polos: 1 }),
  share('savigny', 'Savignyplatz', 'Savignyplatz 5', '10623', 52.5057, 13.3195, { mini: 1, ix1: 1, id3s: 1 }),
  share('winterfeldt', 'Winterfeldtplatz', 'Maaßenstraße 14', '10777', 52.4974, 13.3516, { eup: 1, buzz: 1 }),
  share('leopold', 'Wedding Leopoldplatz', 'Müllerstraße 146', '13353', 52.5466, 13.3593, { polos: 2, eup: 1 }),
  share('ostkreuz', 'Ostkreuz', 'Sonntagstraße 1', '10245', 52.503, 13.4695, { id3s: 1, buzz: 1, ix1: 1 }),
]

/** Car sharing terms: energy included, 200 km a day included, a per-hour rate capped per day. */
const sharing = (hourlyRate: number, dailyRate: number, energy: Terms['energy']): Terms => ({
  dailyRate,
  hourlyRate,
  insurance: 'STANDARD',
  refillPolicy: 'FUEL_INCLUDED',
  includedKmPerDay: 200,
  extraKmRate: 29,
  energy,
})
const EXACT = { exact: true }

/** sandbox-share: the exact car parked at the spot (isConfirmed). */
export const SHARE_FLEET: SandboxVehicleModel[] = [
  car(
    'eup',
    ['Volkswagen', 'e-up!', 2022],
    ['ECONOMY', 'ELECTRIC', 'AUTOMATIC'],
    [4, 5, 1],
    0,
    KIT,
    sharing(790, 4900, fuel('electricity', 13.5)),
    EXACT,
  ),
  car(
    'polos',
    ['Volkswagen', 'Polo 1.0 TSI', 2023],
    ['ECONOMY', 'PETROL', 'MANUAL'],
    [5, 5, 2],
    128,
    [...KIT, 'ISOFIX'],
    sharing(690, 4500, fuel('petrol', 5.6)),
    EXACT,
  ),
  car(
    'mini',
    ['MINI', 'Cooper SE', 2023],
    ['COMPACT', 'ELECTRIC', 'AUTOMATIC'],
    [4, 3, 1],
    0,
    NAV,
    sharing(990, 6900, fuel('electricity', 15.2)),
    EXACT,
  ),
  car(
    'id3s',
    ['Volkswagen', 'ID.3 Pure', 2024],
    ['COMPACT', 'ELECTRIC', 'AUTOMATIC'],
    [5, 5, 3],
    0,
    [...NAV, 'ISOFIX'],
    sharing(990, 6900, fuel('electricity', 15.5)),
    EXACT,
  ),
  car(
    'ix1',
    ['BMW', 'iX1 xDrive30', 2024],
    ['SUV', 'ELECTRIC', 'AUTOMATIC'],
    [5, 5, 4],
    0,
    [...NAV, 'ISOFIX', 'FOUR_WHEEL_DRIVE'],
    sharing(1390, 8900, fuel('electricity', 17.8)),
    EXACT,
  ),
  car(
    'buzz',
    ['Volkswagen', 'ID. Buzz', 2024],
    ['VAN', 'ELECTRIC', 'AUTOMATIC'],
    [5, 5, 6],
    0,
    [...NAV, 'ISOFIX', 'BIKE_RACK'],
    sharing(1490, 9900, fuel('electricity', 20.4)),
    EXACT,
  ),
]
