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
    insurance: {
      BASIC: 'Third-party liability',
      STANDARD: 'Collision damage waiver and theft protection, 1,000 EUR excess',
      COMPREHENSIVE: 'Collision damage waiver and theft protection, 500 EUR excess',
      FULL_COVERAGE: 'Full protection, 150 EUR excess',
      PREMIUM: 'Premium protection without excess, glass and tyres included',
    },
    inRate: ' (included in the rate)',
    hourly: (hours: number, hourRate: number, dayRate: number) =>
      `${hours} h at ${money(hourRate)} per hour, at most ${money(dayRate)} per day`,
    daily: (days: number, dayRate: number) => `${days} day${days === 1 ? '' : 's'} at ${money(dayRate)}`,
    airport: 'Airport surcharge',
    oneWayFee: (station: string) => `One-way fee (return at ${station})`,
    youngFee: 'Young driver surcharge (under 25)',
    extraKm: (km: number, rate: number) => `Estimated additional kilometres: ${km} km at ${money(rate)}`,
    total: (base: string) => `Rental ${base}, insurance, fees and extras, VAT included`,
    vat: (percent: number) => `VAT ${percent}%`,
    perDay: 'Average per rental day, everything included',
    fuelIncluded: 'Fuel and energy included',
    noDistance: 'No distance given',
    energy: (per100km: number, unit: string, price: number) => `${per100km} ${unit}/100 km at ${money(price)}/${unit}`,
    estimated: (km: number, parts: string) => `Estimated for ${km} km: ${parts}`,
    changeFeeLine: 'Change fee',
    upsellPerRental: (name: string) => `${name}, per rental`,
    upsellPerDay: (name: string, days: number, perDay: number, max?: number) =>
      `${name}: ${days} × ${money(perDay)}${max ? `, at most ${money(max)}` : ''}`,
    freeCancellation: 'Free cancellation',
    lateCancellation: (fee: number) => `Late cancellation fee ${money(fee)}`,
    noShowTerms: 'No-show: the whole price is charged',
    franchiseCancel:
      'This station is run by a franchise partner: cancel by phone or e-mail quoting the booking reference.',
    lateRate: (rent: boolean): string => (rent ? "one day's rate" : "one hour's rate"),
    freeUntil: (hours: number) => `Free cancellation until ${hours} hour${hours === 1 ? '' : 's'} before pickup.`,
    laterCost: (rate: string, fee: number) => `Later cancellations cost ${rate} (${money(fee)}).`,
    notPickedUp: 'Without cancellation, a booking not picked up is charged in full.',
    cancellationTitle: 'Cancellation',
    cancellationText: (hours: number, rate: string) =>
      `You can cancel **free of charge until ${hours} h before pickup**. After that, ${rate} is charged; the rest is refunded.`,
    noShowTitle: 'No-show',
    noShowText: 'If the car is not picked up and the booking was not cancelled, the **whole price** is charged.',
    franchiseTimes: 'The franchise partner changes rental times by phone or e-mail.',
    freeChange: 'Free change',
    changeFee: (fee: number) => `Change fee ${money(fee)}`,
    changeFeeApplies: 'Change fee applies',
    recalculated: 'The price is recalculated at the rates of the booking for the new period.',
    untilPickup: 'Rental times can be changed until pickup, subject to availability.',
    shareAccount: 'The driver must hold a verified Sandbox Share account.',
    shareOtherSpot: 'Cancel and book a car at the other spot.',
    shareReturn: 'Cars are returned to the spot they were picked up from.',
    shareExact: 'Each booking is for the exact car parked at the spot.',
    driverAtCounter: "The main driver is changed at the counter with the new driver's licence.",
    rebook: 'Cancel and book again to pick up at another station.',
    returnElsewhere: 'Call or write to us to return the car elsewhere; a one-way fee may apply.',
    upgrades: 'Upgrades are offered at the counter, subject to availability.',
    drivingPermit:
      'Licences from outside the EU/EEA that are not in Latin script need an International Driving Permit.',
    shareAge: (age: number) => `Drivers must be at least ${age} and hold their licence for a year.`,
    rentAge: (age: number) => `The main driver must be at least ${age}; drivers under 25 pay a young driver surcharge.`,
    creditCard: "A credit card in the main driver's name; a deposit is blocked at pickup.",
    passport: 'A passport or national ID card; drivers from outside the EU need a passport.',
    additionalDriver:
      'Each additional driver costs 12.00 EUR per day (upsell ADDITIONAL_DRIVER) and must show a licence.',
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
    insurance: {
      BASIC: 'Haftpflichtversicherung',
      STANDARD: 'Vollkasko und Diebstahlschutz, 1.000 EUR Selbstbeteiligung',
      COMPREHENSIVE: 'Vollkasko und Diebstahlschutz, 500 EUR Selbstbeteiligung',
      FULL_COVERAGE: 'Rundumschutz, 150 EUR Selbstbeteiligung',
      PREMIUM: 'Premiumschutz ohne Selbstbeteiligung, Glas und Reifen inklusive',
    },
    inRate: ' (im Tarif enthalten)',
    hourly: (hours: number, hourRate: number, dayRate: number) =>
      `${hours} Std. zu ${money(hourRate)} pro Stunde, höchstens ${money(dayRate)} pro Tag`,
    daily: (days: number, dayRate: number) => `${days} ${days === 1 ? 'Tag' : 'Tage'} zu ${money(dayRate)}`,
    airport: 'Flughafenzuschlag',
    oneWayFee: (station: string) => `Einweggebühr (Rückgabe an ${station})`,
    youngFee: 'Jungfahrerzuschlag (unter 25)',
    extraKm: (km: number, rate: number) => `Geschätzte Mehrkilometer: ${km} km zu ${money(rate)}`,
    total: (base: string) => `Miete ${base}, Versicherung, Gebühren und Extras, inkl. MwSt.`,
    vat: (percent: number) => `MwSt. ${percent} %`,
    perDay: 'Durchschnitt pro Miettag, alles inklusive',
    fuelIncluded: 'Kraftstoff und Energie inklusive',
    noDistance: 'Keine Strecke angegeben',
    energy: (per100km: number, unit: string, price: number) => `${per100km} ${unit}/100 km zu ${money(price)}/${unit}`,
    estimated: (km: number, parts: string) => `Geschätzt für ${km} km: ${parts}`,
    changeFeeLine: 'Änderungsgebühr',
    upsellPerRental: (name: string) => `${name}, pro Miete`,
    upsellPerDay: (name: string, days: number, perDay: number, max?: number) =>
      `${name}: ${days} × ${money(perDay)}${max ? `, höchstens ${money(max)}` : ''}`,
    freeCancellation: 'Kostenlose Stornierung',
    lateCancellation: (fee: number) => `Gebühr für späte Stornierung ${money(fee)}`,
    noShowTerms: 'Nichterscheinen: Der volle Preis wird berechnet',
    franchiseCancel:
      'Diese Station betreibt ein Franchisepartner: Stornieren Sie telefonisch oder per E-Mail unter Angabe der Buchungsnummer.',
    lateRate: (rent: boolean): string => (rent ? 'ein Tagessatz' : 'ein Stundensatz'),
    freeUntil: (hours: number) =>
      `Kostenlose Stornierung bis ${hours} ${hours === 1 ? 'Stunde' : 'Stunden'} vor der Abholung.`,
    laterCost: (rate: string, fee: number) => `Für spätere Stornierungen wird ${rate} berechnet (${money(fee)}).`,
    notPickedUp: 'Ohne Stornierung wird eine nicht abgeholte Buchung voll berechnet.',
    cancellationTitle: 'Stornierung',
    cancellationText: (hours: number, rate: string) =>
      `Sie können **bis ${hours} Std. vor der Abholung kostenlos stornieren**. Danach wird ${rate} berechnet; der Rest wird erstattet.`,
    noShowTitle: 'Nichterscheinen',
    noShowText:
      'Wird das Auto nicht abgeholt und wurde die Buchung nicht storniert, wird der **volle Preis** berechnet.',
    franchiseTimes: 'Der Franchisepartner ändert Mietzeiten telefonisch oder per E-Mail.',
    freeChange: 'Kostenlose Änderung',
    changeFee: (fee: number) => `Änderungsgebühr ${money(fee)}`,
    changeFeeApplies: 'Änderungsgebühr fällig',
    recalculated: 'Der Preis wird zu den Tarifen der Buchung für den neuen Zeitraum neu berechnet.',
    untilPickup: 'Mietzeiten lassen sich bis zur Abholung ändern, je nach Verfügbarkeit.',
    shareAccount: 'Der Fahrer braucht ein bestätigtes Sandbox-Share-Konto.',
    shareOtherSpot: 'Stornieren Sie und buchen Sie ein Auto am anderen Stellplatz.',
    shareReturn: 'Autos werden an den Stellplatz zurückgebracht, an dem sie abgeholt wurden.',
    shareExact: 'Jede Buchung gilt für genau das Auto am Stellplatz.',
    driverAtCounter: 'Der Hauptfahrer wird am Schalter mit dem Führerschein des neuen Fahrers geändert.',
    rebook: 'Stornieren und neu buchen, um an einer anderen Station abzuholen.',
    returnElsewhere:
      'Rufen Sie uns an oder schreiben Sie uns, um das Auto anderswo zurückzugeben; eine Einweggebühr kann anfallen.',
    upgrades: 'Upgrades gibt es am Schalter, je nach Verfügbarkeit.',
    drivingPermit:
      'Führerscheine von außerhalb der EU/des EWR, die nicht in lateinischer Schrift sind, brauchen einen Internationalen Führerschein.',
    shareAge: (age: number) =>
      `Fahrer müssen mindestens ${age} Jahre alt sein und den Führerschein seit einem Jahr haben.`,
    rentAge: (age: number) =>
      `Der Hauptfahrer muss mindestens ${age} Jahre alt sein; Fahrer unter 25 zahlen einen Jungfahrerzuschlag.`,
    creditCard: 'Eine Kreditkarte auf den Namen des Hauptfahrers; bei der Abholung wird eine Kaution geblockt.',
    passport: 'Ein Reisepass oder Personalausweis; Fahrer von außerhalb der EU brauchen einen Reisepass.',
    additionalDriver:
      'Jeder zusätzliche Fahrer kostet 12.00 EUR pro Tag (Upsell ADDITIONAL_DRIVER) und muss einen Führerschein zeigen.',
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
    insurance: {
      BASIC: 'Responsabilité civile',
      STANDARD: 'Rachat de franchise dommages et protection vol, franchise de 1 000 EUR',
      COMPREHENSIVE: 'Rachat de franchise dommages et protection vol, franchise de 500 EUR',
      FULL_COVERAGE: 'Protection complète, franchise de 150 EUR',
      PREMIUM: 'Protection premium sans franchise, vitres et pneus compris',
    },
    inRate: ' (compris dans le tarif)',
    hourly: (hours: number, hourRate: number, dayRate: number) =>
      `${hours} h à ${money(hourRate)} de l’heure, au plus ${money(dayRate)} par jour`,
    daily: (days: number, dayRate: number) => `${days} jour${days === 1 ? '' : 's'} à ${money(dayRate)}`,
    airport: 'Supplément aéroport',
    oneWayFee: (station: string) => `Frais d’aller simple (retour à ${station})`,
    youngFee: 'Supplément jeune conducteur (moins de 25 ans)',
    extraKm: (km: number, rate: number) => `Kilomètres supplémentaires estimés : ${km} km à ${money(rate)}`,
    total: (base: string) => `Location ${base}, assurance, frais et options, TVA incluse`,
    vat: (percent: number) => `TVA ${percent} %`,
    perDay: 'Moyenne par jour de location, tout compris',
    fuelIncluded: 'Carburant et énergie compris',
    noDistance: 'Aucune distance indiquée',
    energy: (per100km: number, unit: string, price: number) => `${per100km} ${unit}/100 km à ${money(price)}/${unit}`,
    estimated: (km: number, parts: string) => `Estimation pour ${km} km : ${parts}`,
    changeFeeLine: 'Frais de modification',
    upsellPerRental: (name: string) => `${name}, par location`,
    upsellPerDay: (name: string, days: number, perDay: number, max?: number) =>
      `${name} : ${days} × ${money(perDay)}${max ? `, au plus ${money(max)}` : ''}`,
    freeCancellation: 'Annulation gratuite',
    lateCancellation: (fee: number) => `Frais d’annulation tardive ${money(fee)}`,
    noShowTerms: 'Non-présentation : le prix total est facturé',
    franchiseCancel:
      'Cette agence est tenue par un franchisé : annulez par téléphone ou par e-mail en indiquant la référence de réservation.',
    lateRate: (rent: boolean): string => (rent ? 'le tarif d’une journée' : 'le tarif d’une heure'),
    freeUntil: (hours: number) =>
      `Annulation gratuite jusqu’à ${hours} heure${hours === 1 ? '' : 's'} avant la prise en charge.`,
    laterCost: (rate: string, fee: number) => `Une annulation plus tardive coûte ${rate} (${money(fee)}).`,
    notPickedUp: 'Sans annulation, une réservation non retirée est facturée en totalité.',
    cancellationTitle: 'Annulation',
    cancellationText: (hours: number, rate: string) =>
      `Vous pouvez annuler **gratuitement jusqu’à ${hours} h avant la prise en charge**. Ensuite, ${rate} est facturé ; le reste est remboursé.`,
    noShowTitle: 'Non-présentation',
    noShowText:
      'Si la voiture n’est pas retirée et que la réservation n’a pas été annulée, le **prix total** est facturé.',
    franchiseTimes: 'Le franchisé modifie les horaires de location par téléphone ou par e-mail.',
    freeChange: 'Modification gratuite',
    changeFee: (fee: number) => `Frais de modification ${money(fee)}`,
    changeFeeApplies: 'Des frais de modification s’appliquent',
    recalculated: 'Le prix est recalculé aux tarifs de la réservation pour la nouvelle période.',
    untilPickup:
      'Les horaires de location peuvent être modifiés jusqu’à la prise en charge, sous réserve de disponibilité.',
    shareAccount: 'Le conducteur doit avoir un compte Sandbox Share vérifié.',
    shareOtherSpot: 'Annulez et réservez une voiture à l’autre emplacement.',
    shareReturn: 'Les voitures sont rendues à l’emplacement où elles ont été prises.',
    shareExact: 'Chaque réservation porte sur la voiture garée à cet emplacement.',
    driverAtCounter: 'Le conducteur principal est changé au comptoir avec le permis du nouveau conducteur.',
    rebook: 'Annulez et réservez à nouveau pour une prise en charge dans une autre agence.',
    returnElsewhere:
      'Appelez-nous ou écrivez-nous pour rendre la voiture ailleurs ; des frais d’aller simple peuvent s’appliquer.',
    upgrades: 'Les surclassements sont proposés au comptoir, sous réserve de disponibilité.',
    drivingPermit:
      'Les permis hors UE/EEE qui ne sont pas en alphabet latin doivent être accompagnés d’un permis de conduire international.',
    shareAge: (age: number) => `Les conducteurs doivent avoir au moins ${age} ans et leur permis depuis un an.`,
    rentAge: (age: number) =>
      `Le conducteur principal doit avoir au moins ${age} ans ; les conducteurs de moins de 25 ans paient un supplément jeune conducteur.`,
    creditCard: 'Une carte de crédit au nom du conducteur principal ; une caution est bloquée à la prise en charge.',
    passport: 'Un passeport ou une carte d’identité ; les conducteurs hors UE ont besoin d’un passeport.',
    additionalDriver:
      'Chaque conducteur supplémentaire coûte 12.00 EUR par jour (option ADDITIONAL_DRIVER) et doit présenter un permis.',
  },
}

export type SandboxTexts = (typeof TEXTS)['en']

export const textsFor = (language: string): SandboxTexts => TEXTS[language as keyof typeof TEXTS] ?? TEXTS.en
