/**
 * `npm run admin -- ...`: the admin API's operations without HTTP (DECISIONS "Admin API"). It opens the same runtime
 * as the service, builds the same services as the app and validates with the same schemas, so it accepts and refuses
 * what the API does, and its changes move the shared authentication epoch (REDIS_URL) like the API's.
 */
import { Type } from 'typebox'
import { ConfigError, loadConfig } from '../config.ts'
import { ApiKeyCreate, TenantCreate, TenantUpdate } from '../contract/admin.ts'
import { OffsetQuery } from '../contract/common.ts'
import { ApiError, isApiError } from '../contract/errors.ts'
import { createKeyResolver } from '../domain/tenants/key-resolver.ts'
import { createTenantService } from '../domain/tenants/service.ts'
import { validationDetails } from '../http/error-handler.ts'
import { validatorCompiler } from '../http/validation.ts'
import { errorMessage } from '../platform/i18n/index.ts'
import { localizeDetails } from '../platform/i18n/texts.ts'
import { openRuntime, type Runtime } from '../runtime.ts'
import { createTenantsRepo } from '../store/tenants-repo.ts'
import { type Command, flagFor, parseCommand, USAGE, UsageError } from './args.ts'

type Issues = Parameters<typeof validationDetails>[0]

/** The API's error details in English (a choice between constants spelled out: `must be one of STANDARD, NONE`). */
function describe(issues: Issues, context: string): Record<string, string> {
  return JSON.parse(JSON.stringify(validationDetails(issues, context)))
}

/** The app's own validator: bodies strictly, query strings with coercion, errors in the API's shape. */
const compile = validatorCompiler()
function validator<T>(schema: unknown, httpPart: 'body' | 'querystring' | 'params') {
  const validate = compile({ schema, httpPart, method: 'POST', url: '/admin/v1' }) as (data: unknown) => {
    value?: unknown
    error?: { validation: Issues }
  }
  return (data: unknown): T => {
    const result = validate(data)
    if (result.error) throw new ApiError('INVALID_REQUEST', undefined, describe(result.error.validation, httpPart))
    return data as T
  }
}
const validateTenantCreate = validator<TenantCreate>(TenantCreate, 'body')
const validateTenantUpdate = validator<TenantUpdate>(TenantUpdate, 'body')
const validateKeyCreate = validator<ApiKeyCreate>(ApiKeyCreate, 'body')
const validateListQuery = validator<unknown>(OffsetQuery, 'querystring')
// The path parameters as the admin routes declare them.
const validateTenantParams = validator<unknown>(Type.Object({ tenantId: Type.String({ maxLength: 100 }) }), 'params')
const validateKeyParams = validator<unknown>(Type.Object({ keyId: Type.String({ maxLength: 100 }) }), 'params')

/** Validates before anything is opened, so a refused command line never touches the store. */
function check(command: Command): void {
  if ('tenantId' in command) validateTenantParams({ tenantId: command.tenantId })
  if ('keyId' in command) validateKeyParams({ keyId: command.keyId })
  if (command.kind === 'tenants create') validateTenantCreate(command.body)
  if (command.kind === 'tenants update') validateTenantUpdate(command.body)
  if (command.kind === 'keys create') validateKeyCreate(command.body)
  // Coerces `page` and `limit` to integers in place and fills the defaults, as the API does with its query string.
  if (command.kind === 'tenants list') validateListQuery(command.query)
}

async function execute(command: Exclude<Command, { kind: 'help' }>, runtime: Runtime): Promise<unknown> {
  // As in createApp: the key cache's epoch moves on every change, so running instances sharing REDIS_URL see it.
  const repo = createTenantsRepo(runtime.store.db)
  const keys = createKeyResolver({ repo, kv: runtime.kv, clock: runtime.clock })
  const tenants = createTenantService({
    repo,
    clock: runtime.clock,
    providerIds: () => runtime.registry.ids(),
    onChange: () => keys.invalidate(),
  })
  switch (command.kind) {
    case 'tenants create':
      return { tenant: await tenants.createTenant(command.body as TenantCreate) }
    case 'tenants list': {
      const query = command.query as { page?: number; limit?: number }
      return tenants.listTenants(query.page ?? 0, query.limit ?? 20)
    }
    case 'tenants get':
      return { tenant: await tenants.getTenant(command.tenantId) }
    case 'tenants update':
      return { tenant: await tenants.updateTenant(command.tenantId, command.body as TenantUpdate) }
    case 'keys create':
      return { key: await tenants.createKey(command.tenantId, command.body as ApiKeyCreate) }
    case 'keys list':
      return { keys: await tenants.listKeys(command.tenantId) }
    case 'keys revoke':
      return { key: await tenants.revokeKey(command.keyId) }
  }
}

function report(error: unknown): number {
  const write = (text: string) => process.stderr.write(`${text}\n`)
  if (error instanceof UsageError) {
    write(`error: ${error.message}`)
    write('Run `npm run admin -- help` for usage.')
    return 2
  }
  if (isApiError(error)) {
    const reason = error.details?.reason
    write(`error: ${error.code}: ${error.hasCustomMessage ? error.message : errorMessage('en', error.code, reason)}`)
    for (const [field, detail] of Object.entries(localizeDetails(error.details ?? {}, 'en'))) {
      const flag = flagFor(field)
      write(`  ${field}${flag ? ` (${flag})` : ''}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`)
    }
    return 1
  }
  if (error instanceof ConfigError) {
    write(error.message)
    return 1
  }
  write(`error: ${error instanceof Error ? error.message : String(error)}`)
  if (process.env.DEBUG && error instanceof Error && error.stack) write(error.stack)
  return 1
}

async function main(argv: string[]): Promise<number> {
  let runtime: Runtime | undefined
  try {
    const command = parseCommand(argv)
    if (command.kind === 'help') {
      process.stdout.write(`${USAGE}\n`)
      return 0
    }
    check(command)
    runtime = await openRuntime(loadConfig(), {
      logger: false,
      onProviderProblem: (id, message) => process.stderr.write(`warning: provider ${id} unavailable: ${message}\n`),
    })
    const data = await execute(command, runtime)
    process.stdout.write(`${JSON.stringify(data, null, 2)}\n`)
    return 0
  } catch (error) {
    return report(error)
  } finally {
    await runtime?.close().catch((error: unknown) => {
      process.stderr.write(`warning: closing failed: ${error instanceof Error ? error.message : String(error)}\n`)
    })
  }
}

const code = await main(process.argv.slice(2))
process.exitCode = code
// Everything is closed; should a handle still linger, it must not keep the command from ending.
setTimeout(() => process.exit(code), 2000).unref()
