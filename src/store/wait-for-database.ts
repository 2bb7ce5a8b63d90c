import pg from 'pg'
import { StartupError } from '../platform/startup-error.ts'

export interface WaitOptions {
  /** Attempts in all (default 6: about 15 s of waiting, enough for a database started beside the service). */
  attempts?: number
  firstDelayMs?: number
  maxDelayMs?: number
  connectTimeoutMs?: number
  /** Told before each wait, so the operator sees that the service waits and why. */
  onRetry?: (message: string) => void
  sleep?: (ms: number) => Promise<void>
}

/** The URL as it may be shown: the password replaced. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return '(unparseable URL)'
  }
}

// Answers that waiting does not change: wrong password, unknown role or database.
const PERMANENT: Record<string, string> = {
  '28P01': 'the password is wrong',
  '28000': 'the user may not connect',
  '3D000': 'the database does not exist (create it, or fix the name in the URL)',
  '42501': 'the user lacks the privilege to connect',
}

/**
 * Waits until PostgreSQL accepts a connection and answers, retrying with backoff for a bounded time: in a container
 * or at boot the database often starts a few seconds after the service. Fails with a StartupError that names
 * DATABASE_URL (password hidden), what went wrong and what to check, never with a bare driver stack.
 */
export async function waitForDatabase(url: string, options: WaitOptions = {}): Promise<void> {
  const attempts = options.attempts ?? 6
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)))
  const shown = redactUrl(url)
  let delay = options.firstDelayMs ?? 500
  const started = Date.now()
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: options.connectTimeoutMs ?? 5000 })
    // A connection that breaks after connecting must not crash the process before end() ran.
    client.on('error', () => {})
    try {
      await client.connect()
      await client.query('SELECT 1')
      return
    } catch (error) {
      const code = (error as { code?: string }).code ?? ''
      const what = `${(error as Error).message}${code && !(error as Error).message.includes(code) ? ` (${code})` : ''}`
      const permanent = PERMANENT[code]
      if (permanent) throw new StartupError(`DATABASE_URL=${shown}: ${permanent}: ${what}`, { cause: error })
      if (attempt >= attempts) {
        const seconds = Math.round((Date.now() - started) / 1000)
        throw new StartupError(
          `DATABASE_URL=${shown}: the database did not answer after ${attempts} attempts in ${seconds} s: ${what}. ` +
            'Check that PostgreSQL runs and accepts connections from this host (listen_addresses, pg_hba.conf, ' +
            'firewall), and the host, port and database name in the URL.',
          { cause: error },
        )
      }
      options.onRetry?.(
        `the database at DATABASE_URL=${shown} does not answer (${what}); attempt ${attempt} of ${attempts}, ` +
          `trying again in ${(delay / 1000).toFixed(1)} s`,
      )
      await sleep(delay)
      delay = Math.min(delay * 2, options.maxDelayMs ?? 8000)
    } finally {
      await client.end().catch(() => {})
    }
  }
}
