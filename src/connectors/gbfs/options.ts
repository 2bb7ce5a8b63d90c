import { type StaticDecode, Type } from 'typebox'
import { feedOptions, feedUrl, flag, languageTag, numberIn, parseOptions } from '../shared/options.ts'

/** The options of a `gbfs` providers-file entry (DECISIONS "Providers file"). */
export const GbfsOptionsSchema = Type.Object({
  /** The discovery file: gbfs.json (or a 3.0 manifest.json / gbfs_versions.json), `http(s):` or `file:`. */
  url: feedUrl('is required: the GBFS discovery file (gbfs.json), http(s): or file:'),
  /** Which language block of a 2.x gbfs.json, and which text of 3.0 localized strings (else `en`, else the first). */
  language: Type.Optional(languageTag('"en" or "de-CH"')),
  /** Read each feed from `<feed name>.json` next to the discovery file instead of the URL it lists. */
  localFeeds: flag(),
  /** Floor of every refresh interval, seconds (feeds with `ttl: 0` would otherwise be read continuously). */
  minTtlSeconds: numberIn(0.1, 86_400, 15),
  /** Which system of a 3.0 manifest.json (default: the first). */
  systemId: Type.Optional(Type.String({ minLength: 1, problem: 'must be a non-empty string' })),
  // Headers are sent only to the origin of `url`; the logger receives each new problem (the same message again is
  // only counted, see `problems()`).
  ...feedOptions(
    { fallback: 10_000, min: 100, max: 120_000 },
    { fallback: 32 * 1024 * 1024, min: 1024, max: 512 * 1024 * 1024 },
  ),
})

export type GbfsOptions = StaticDecode<typeof GbfsOptionsSchema>

/** Checks the options of a providers-file entry; throws with every problem (the provider is then UNAVAILABLE). */
export const parseGbfsOptions = (raw: Record<string, unknown> = {}, providerId?: string): GbfsOptions =>
  parseOptions(GbfsOptionsSchema, raw, { connector: 'gbfs', providerId })
