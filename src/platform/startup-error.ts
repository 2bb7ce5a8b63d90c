/**
 * A reason the service cannot start that the operator fixes in the configuration or the environment (a file that
 * is not there, a database that does not answer). `main` prints its message alone: a stack trace would only hide the
 * sentence that says what to change.
 */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StartupError'
  }
}
