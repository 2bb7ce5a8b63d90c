import type { FastifyBaseLogger } from 'fastify'
import type { FastifyChildLoggerFactory } from 'fastify/types/logger.js'

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type Bindings = Record<string, unknown>
type ChildOptions = Record<string, unknown>
/** Fastify's logger is pino's, which also says which levels it writes. */
type Logger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean }

/**
 * A request's logger (`request.log`) that makes pino's child, with the request's bindings, only when something is
 * logged at a level the logger writes. Fastify makes the child for every request, and at the levels a service runs
 * with (warn) most requests log nothing: pino's child (its bindings serialized, its object) was ~0.3 µs of a
 * GET /auth/check. The lines written are the child's, so they are the same.
 */
class LazyChild {
  #child: Logger | undefined
  readonly #parent: Logger
  readonly #bindings: Bindings
  readonly #options: ChildOptions

  constructor(parent: Logger, bindings: Bindings, options: ChildOptions) {
    this.#parent = parent
    this.#bindings = bindings
    this.#options = options
  }

  #real(): Logger {
    if (this.#child === undefined) this.#child = this.#parent.child(this.#bindings, this.#options) as Logger
    return this.#child
  }

  #log(level: Level, args: unknown[]): void {
    if (this.#child === undefined && !this.#parent.isLevelEnabled(level)) return
    ;(this.#real()[level] as (...a: unknown[]) => void)(...args)
  }

  get level(): string {
    return (this.#child ?? this.#parent).level
  }
  set level(level: string) {
    this.#real().level = level
  }
  silent() {}
  fatal(...args: unknown[]) {
    this.#log('fatal', args)
  }
  error(...args: unknown[]) {
    this.#log('error', args)
  }
  warn(...args: unknown[]) {
    this.#log('warn', args)
  }
  info(...args: unknown[]) {
    this.#log('info', args)
  }
  debug(...args: unknown[]) {
    this.#log('debug', args)
  }
  trace(...args: unknown[]) {
    this.#log('trace', args)
  }
  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.#parent).isLevelEnabled(level)
  }
  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options)
  }
  bindings(): Bindings {
    return (this.#real() as unknown as { bindings(): Bindings }).bindings()
  }
  flush(callback?: (error?: Error) => void): void {
    ;(this.#parent as unknown as { flush(cb?: (error?: Error) => void): void }).flush(callback)
  }
}

/**
 * Fastify's `childLoggerFactory`: the lazy child, unless the route sets its own level or serializers (then pino's
 * child at once, as Fastify's default factory makes it).
 */
export const lazyRequestLogger: FastifyChildLoggerFactory = (logger, bindings, options) => {
  if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options)
  return new LazyChild(logger as Logger, bindings, options as ChildOptions) as unknown as FastifyBaseLogger
}
