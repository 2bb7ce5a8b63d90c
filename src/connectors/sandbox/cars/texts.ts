import { money } from './pricing.ts'

/**
 * What the simulated car providers say to the driver (warnings, the fields a booking still needs) in the caller's
 * language, as a real provider that speaks it would: English, German and French; English for anything else.
 */
const TEXTS = {
  en: {
    flightLabel: 'Flight number',
    flightMessage: 'The airport station needs your flight number to hold the car if the flight is late.',
    limited: 'Only one car of this model is left for these dates',
    oneWay: (fee: number) =>
      `Returning the car at another station costs a one-way fee of ${money(fee)} (included in the price)`,
    young: 'Drivers under 25 pay a young driver surcharge (included in the price)',
    mileage: (km: number) => `Only ${km} km are included; the estimated extra kilometres are charged`,
    rounded: (from: string, to: string) => `The provider rents in half hours: ${from} became ${to}`,
    priceChanged: (from: number, to: number) => `The provider changed the price from ${money(from)} to ${money(to)}`,
    priceUp: 'The price went up since the search',
    priceDown: 'The price went down since the search',
  },
  de: {
    flightLabel: 'Flugnummer',
    flightMessage: 'Die Station am Flughafen braucht Ihre Flugnummer, um das Auto bei Verspätung bereitzuhalten.',
    limited: 'Für diesen Zeitraum ist nur noch ein Auto dieses Modells frei',
    oneWay: (fee: number) =>
      `Die Rückgabe an einer anderen Station kostet eine Einweggebühr von ${money(fee)} (im Preis enthalten)`,
    young: 'Fahrer unter 25 zahlen einen Jungfahrerzuschlag (im Preis enthalten)',
    mileage: (km: number) => `Nur ${km} km sind inklusive; die geschätzten Mehrkilometer werden berechnet`,
    rounded: (from: string, to: string) => `Der Anbieter vermietet in halben Stunden: aus ${from} wurde ${to}`,
    priceChanged: (from: number, to: number) =>
      `Der Anbieter hat den Preis von ${money(from)} auf ${money(to)} geändert`,
    priceUp: 'Der Preis ist seit der Suche gestiegen',
    priceDown: 'Der Preis ist seit der Suche gesunken',
  },
  fr: {
    flightLabel: 'Numéro de vol',
    flightMessage: "L'agence de l'aéroport a besoin de votre numéro de vol pour garder la voiture en cas de retard.",
    limited: 'Il ne reste qu’une voiture de ce modèle pour ces dates',
    oneWay: (fee: number) =>
      `Rendre la voiture dans une autre agence coûte des frais d’aller simple de ${money(fee)} (inclus dans le prix)`,
    young: 'Les conducteurs de moins de 25 ans paient un supplément jeune conducteur (inclus dans le prix)',
    mileage: (km: number) => `Seuls ${km} km sont inclus ; les kilomètres supplémentaires estimés sont facturés`,
    rounded: (from: string, to: string) => `Le fournisseur loue par demi-heure : ${from} est devenu ${to}`,
    priceChanged: (from: number, to: number) => `Le fournisseur a changé le prix de ${money(from)} à ${money(to)}`,
    priceUp: 'Le prix a augmenté depuis la recherche',
    priceDown: 'Le prix a baissé depuis la recherche',
  },
}

export type SandboxTexts = (typeof TEXTS)['en']

export const textsFor = (language: string): SandboxTexts => TEXTS[language as keyof typeof TEXTS] ?? TEXTS.en
