/**
 * The API document with every local `$ref` (`#/components/...`) replaced by what it points to, for tests and tools
 * that walk schemas, parameters and responses as plain objects. The service's document has no cycles; a cycle throws.
 */
export function deref<T>(doc: T): T {
  const root = doc as Record<string, unknown>
  const resolving = new Set<string>()
  const pointer = (ref: string): unknown =>
    ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], root)
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk)
    if (typeof node !== 'object' || node === null) return node
    const { $ref, ...rest } = node as Record<string, unknown>
    if (typeof $ref === 'string' && $ref.startsWith('#/')) {
      if (resolving.has($ref)) throw new Error(`cyclic $ref ${$ref}`)
      const target = pointer($ref)
      if (target === undefined) throw new Error(`unresolved $ref ${$ref}`)
      resolving.add($ref)
      const resolved = walk(target) as Record<string, unknown>
      resolving.delete($ref)
      // Siblings of $ref (a description) apply beside the target.
      return Object.keys(rest).length > 0 ? { ...resolved, ...(walk(rest) as object) } : resolved
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]))
  }
  return walk(doc) as T
}
