/**
 * The languages the service answers in (Accept-Language, a tenant's default language), best-supported first.
 * `src/platform/i18n` holds one message catalog per entry; its test checks that the two agree.
 */
export const LANGUAGES: readonly string[] = ['en', 'de', 'fr']
