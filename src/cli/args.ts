import { type ParseArgsConfig, parseArgs } from 'node:util'

/** A command line the tool cannot make sense of (exit code 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/**
 * What the command line asks for. Bodies and queries are left as raw as the command line allows, so that the
 * admin API's own schemas decide what is acceptable.
 */
export type Command =
  | { kind: 'help' }
  | { kind: 'tenants create'; body: Record<string, unknown> }
  | { kind: 'tenants list'; query: Record<string, unknown> }
  | { kind: 'tenants get'; tenantId: string }
  | { kind: 'tenants update'; tenantId: string; body: Record<string, unknown> }
  | { kind: 'keys create'; tenantId: string; body: Record<string, unknown> }
  | { kind: 'keys list'; tenantId: string }
  | { kind: 'keys revoke'; keyId: string }

export const USAGE = `Usage: npm run admin -- <command> [options]

The operations of the admin API (/admin/v1), without HTTP, on the store that DATA_DIR or DATABASE_URL names
(and REDIS_URL, so changes reach running instances). Results are printed as JSON.

Tenants
  tenants create --name NAME [settings]
  tenants list [--page 0] [--limit 20]
  tenants get <tenantId>
  tenants update <tenantId> [settings]

  settings:
    --name NAME
    --organization ORG                 '' clears it
    --default-language en|de|fr
    --data-retention STANDARD|NONE
    --providers id1,id2                 'all' (default): every provider; '' none
    --email-opt-out | --no-email-opt-out
    --allowed-origins https://a.example,https://b.example    '' none
    --reservation-window-seconds 600

Keys
  keys create <tenantId> --type secret|publishable --environment live|test
              [--permissions a,b] [--rate-limit 100/60] [--expires-at ISO-8601] [--name NAME]
  keys list <tenantId>
  keys revoke <keyId>

  help                                 this text

Exit codes: 0 done, 1 refused or failed (message on stderr), 2 command line not understood.
In embedded mode (no DATABASE_URL) the database can be open in one process only: while the service runs,
use its admin API instead.`

type Options = NonNullable<ParseArgsConfig['options']>

const TENANT_OPTIONS = {
  name: { type: 'string' },
  organization: { type: 'string' },
  'default-language': { type: 'string' },
  'data-retention': { type: 'string' },
  providers: { type: 'string' },
  'email-opt-out': { type: 'boolean' },
  'allowed-origins': { type: 'string' },
  'reservation-window-seconds': { type: 'string' },
} satisfies Options

const KEY_OPTIONS = {
  type: { type: 'string' },
  environment: { type: 'string' },
  permissions: { type: 'string' },
  'rate-limit': { type: 'string' },
  'expires-at': { type: 'string' },
  name: { type: 'string' },
} satisfies Options

const LIST_OPTIONS = { page: { type: 'string' }, limit: { type: 'string' } } satisfies Options

/** The option that sets a body field: `dataRetention` → `--data-retention`, `rateLimit.limit` → `--rate-limit`. */
export function flagFor(field: string): string | undefined {
  const name = field.split(/[.[]/)[0].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
  return name in TENANT_OPTIONS || name in KEY_OPTIONS || name in LIST_OPTIONS ? `--${name}` : undefined
}

/** `a, b,,c` → `['a', 'b', 'c']`; `''` → `[]`. */
const list = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')

/** A number when the text is one, else the text itself, so the schema reports the field ("must be integer"). */
const numeric = (value: string): number | string => (/^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value)

function parse<O extends Options>(args: string[], options: O, positionals: string[], command: string) {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true }>>
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, allowNegative: true, strict: true })
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`)
  }
  if (parsed.positionals.length !== positionals.length) {
    const expected = positionals.length === 0 ? 'no arguments' : positionals.map((p) => `<${p}>`).join(' ')
    throw new UsageError(`${command} takes ${expected} (got: ${parsed.positionals.join(' ') || 'none'})`)
  }
  for (const [i, value] of parsed.positionals.entries()) {
    if (value.trim() === '') throw new UsageError(`${command}: <${positionals[i]}> is empty`)
  }
  return { values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals }
}

function tenantBody(values: Record<string, string | boolean | undefined>): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  const text = (flag: string) => values[flag] as string | undefined
  if (text('name') !== undefined) body.name = text('name')
  if (text('organization') !== undefined) body.organization = text('organization') === '' ? null : text('organization')
  if (text('default-language') !== undefined) body.defaultLanguage = text('default-language')
  if (text('data-retention') !== undefined) body.dataRetention = text('data-retention')
  const providers = text('providers')
  if (providers !== undefined) body.providers = providers.trim() === 'all' ? null : list(providers)
  if (values['email-opt-out'] !== undefined) body.emailOptOut = values['email-opt-out']
  if (text('allowed-origins') !== undefined) body.allowedOrigins = list(text('allowed-origins')!)
  const window = text('reservation-window-seconds')
  if (window !== undefined) body.reservationWindowSeconds = numeric(window)
  return body
}

function keyBody(values: Record<string, string | boolean | undefined>): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  const text = (flag: string) => values[flag] as string | undefined
  if (text('type') !== undefined) body.type = text('type')
  if (text('environment') !== undefined) body.environment = text('environment')
  if (text('permissions') !== undefined) body.permissions = list(text('permissions')!)
  const rateLimit = text('rate-limit')
  if (rateLimit !== undefined) {
    const match = /^\s*([^/\s]+)\s*\/\s*([^/\s]+)\s*$/.exec(rateLimit)
    if (!match) throw new UsageError(`--rate-limit must be <limit>/<windowSeconds>, e.g. 100/60 (got "${rateLimit}")`)
    body.rateLimit = { limit: numeric(match[1]), windowSeconds: numeric(match[2]) }
  }
  if (text('expires-at') !== undefined) body.expiresAt = text('expires-at')
  if (text('name') !== undefined) body.name = text('name')
  return body
}

/** Reads the command line (without `node` and the script). */
export function parseCommand(argv: string[]): Command {
  const [group, action, ...rest] = argv
  if (group === undefined || ['help', '--help', '-h'].includes(group) || argv.includes('--help') || argv.includes('-h'))
    return { kind: 'help' }
  const command = `${group} ${action ?? ''}`.trim()
  switch (command) {
    case 'tenants create':
      return { kind: command, body: tenantBody(parse(rest, TENANT_OPTIONS, [], command).values) }
    case 'tenants list': {
      const { values } = parse(rest, LIST_OPTIONS, [], command)
      const query: Record<string, unknown> = {}
      for (const name of ['page', 'limit'] as const) if (values[name] !== undefined) query[name] = String(values[name])
      return { kind: command, query }
    }
    case 'tenants get':
      return { kind: command, tenantId: parse(rest, {}, ['tenantId'], command).positionals[0] }
    case 'tenants update': {
      const { values, positionals } = parse(rest, TENANT_OPTIONS, ['tenantId'], command)
      if (Object.values(values).every((value) => value === undefined)) {
        throw new UsageError(`${command}: give at least one setting to change`)
      }
      return { kind: command, tenantId: positionals[0], body: tenantBody(values) }
    }
    case 'keys create': {
      const { values, positionals } = parse(rest, KEY_OPTIONS, ['tenantId'], command)
      return { kind: command, tenantId: positionals[0], body: keyBody(values) }
    }
    case 'keys list':
      return { kind: command, tenantId: parse(rest, {}, ['tenantId'], command).positionals[0] }
    case 'keys revoke':
      return { kind: command, keyId: parse(rest, {}, ['keyId'], command).positionals[0] }
    default:
      throw new UsageError(`unknown command "${command}"`)
  }
}
