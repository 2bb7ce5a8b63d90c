import type { AddressInfo } from 'node:net'
import type { Harness } from './harness.ts'

/** Puts every instance of a harness on a real port; answers their base URLs. */
export async function listenAll(h: Harness): Promise<string[]> {
  const urls: string[] = []
  for (const app of h.apps) {
    await app.listen({ port: 0, host: '127.0.0.1' })
    urls.push(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`)
  }
  return urls
}

export async function call(base: string, method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  })
  return { status: res.status, headers: res.headers, body: (await res.json()) as any }
}
