/**
 * The body of an HTTP answer, refused as soon as it declares or reaches more than `maxBytes` (a feed or operator
 * that answers too much never fills the memory). `tooLarge` makes the connector's own error from the message.
 */
export async function readBoundedBody(
  response: Response,
  maxBytes: number,
  where: string,
  tooLarge: (message: string) => Error,
): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {})
    throw tooLarge(`${where} declares ${declared} bytes, more than the limit of ${maxBytes}`)
  }
  if (!response.body) return Buffer.alloc(0)
  const chunks: Uint8Array[] = []
  let total = 0
  const reader = response.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => {})
      throw tooLarge(`${where} is larger than the limit of ${maxBytes} bytes`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks, total)
}
