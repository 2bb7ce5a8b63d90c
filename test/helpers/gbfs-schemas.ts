import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'

/**
 * MobilityData's official GBFS 3.0 JSON Schemas (draft-07), as the GBFS connector's fixtures hold them: copied
 * unchanged from gbfs-json-schema (commit and Apache-2.0 licence in src/connectors/gbfs/fixtures/SOURCE.md and
 * LICENSE). Formats (date-time, uri, email) are checked; `strict: false` because the schemas carry `errorMessage`.
 */
const SCHEMAS = fileURLToPath(new URL('../../src/connectors/gbfs/fixtures/schemas/v3.0/', import.meta.url))
const ajv = new Ajv({ allErrors: true, strict: false })
addFormats.default(ajv)

export const OFFICIAL_FILES = [
  'manifest',
  'gbfs',
  'system_information',
  'vehicle_types',
  'vehicle_status',
  'station_information',
  'station_status',
  'geofencing_zones',
  'system_pricing_plans',
] as const

/** Fails with the official schema's complaints when `value` is not a valid GBFS 3.0 `<file>.json`. */
export function assertOfficialGbfs(file: string, value: unknown, where = ''): void {
  if (!ajv.getSchema(file)) ajv.addSchema(JSON.parse(readFileSync(join(SCHEMAS, `${file}.json`), 'utf8')), file)
  const validate = ajv.getSchema(file)
  assert.ok(validate, `no official GBFS 3.0 schema for ${file}`)
  assert.ok(
    validate(value),
    `${where}${file}.json against the official GBFS 3.0 schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 600)}`,
  )
}
